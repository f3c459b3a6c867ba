package org.ndrt.dl4j.spark;

import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.MultiDataSet;
import org.ndrt.dl4j.Tensors;
import org.ndrt.spark.RecordConverter;

/** ND4J's DataSet and MultiDataSet as records of org.ndrt's Spark trainers (the same storage, no copy). */
public final class Records {
  private Records() {}

  public static final RecordConverter<DataSet> DATA_SET = new RecordConverter<DataSet>() {
    private static final long serialVersionUID = 1L;

    @Override
    public int numExamples(DataSet d) {
      return d.numExamples();
    }

    @Override
    public org.ndrt.data.MultiDataSet convert(DataSet d) {
      return org.ndrt.data.MultiDataSet.of(Tensors.dataSet(d));
    }
  };

  public static final RecordConverter<MultiDataSet> MULTI_DATA_SET = new RecordConverter<MultiDataSet>() {
    private static final long serialVersionUID = 1L;

    @Override
    public int numExamples(MultiDataSet d) {
      return (int) d.getFeatures(0).size(0);
    }

    @Override
    public org.ndrt.data.MultiDataSet convert(MultiDataSet d) {
      return Tensors.multiDataSet(d);
    }
  };
}
