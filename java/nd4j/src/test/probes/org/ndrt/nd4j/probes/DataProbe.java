package org.ndrt.nd4j.probes;

import java.util.Arrays;
import java.util.List;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.SplitTestAndTrain;
import org.nd4j.linalg.dataset.ViewIterator;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.dataset.api.preprocessor.ImagePreProcessingScaler;
import org.nd4j.linalg.dataset.api.preprocessor.NormalizerMinMaxScaler;
import org.nd4j.linalg.dataset.api.preprocessor.NormalizerStandardize;
import org.nd4j.linalg.factory.Nd4j;

/**
 * DataSet splitting, ranges, batches and merging, shuffling's invariants (the order itself depends
 * on each library's generator), and the normalizers fitted on a data set and on an iterator, with
 * fixed data. Compared between real ND4J and ndrt-nd4j by tests/compare_probes.sh.
 */
public class DataProbe {
  /** Every value in full (the comparison allows float rounding; 4-decimal printing would not). */
  static void show(String what, INDArray a) {
    System.out.println(what + " " + a.dataType() + " " + Arrays.toString(a.shape()));
    System.out.println(Arrays.toString(a.dup().castTo(DataType.DOUBLE).reshape(-1).toDoubleVector()));
  }

  static DataSet data() {
    // 10 examples, 3 features of different scales (exact small integers times powers of 10)
    INDArray f = Nd4j.zeros(DataType.FLOAT, 10, 3);
    for (int i = 0; i < 10; i++) {
      f.putScalar(i, 0, (i * 7) % 11 - 5);
      f.putScalar(i, 1, ((i * 3) % 7) * 10 + 5);
      f.putScalar(i, 2, ((i * 5) % 13) * 100 - 50);
    }
    INDArray l = Nd4j.zeros(DataType.FLOAT, 10, 3);
    for (int i = 0; i < 10; i++) {
      l.putScalar(i, (i * 7) % 3, 1);
    }
    return new DataSet(f, l);
  }

  public static void main(String[] args) {
    DataSet ds = data();
    System.out.println("examples " + ds.numExamples() + " inputs " + ds.numInputs() + " outcomes " + ds.numOutcomes());
    System.out.println("labelCounts " + ds.labelCounts());
    show("features", ds.getFeatures());

    SplitTestAndTrain split = ds.splitTestAndTrain(7);
    show("train f", split.getTrain().getFeatures());
    show("test l", split.getTest().getLabels());
    SplitTestAndTrain frac = ds.splitTestAndTrain(0.75);
    System.out.println("fraction split " + frac.getTrain().numExamples() + " / " + frac.getTest().numExamples());

    show("range 2-5", ((DataSet) ds.getRange(2, 5)).getFeatures());
    show("example 4", ds.get(4).getFeatures());
    List<DataSet> batches = ds.batchBy(4);
    System.out.println("batches " + batches.size() + " sizes " + batches.get(0).numExamples() + " "
        + batches.get(2).numExamples());
    show("merged", DataSet.merge(ds.asList()).getFeatures());
    System.out.println("merge equals " + DataSet.merge(batches).getFeatures().equals(ds.getFeatures()));

    DataSet sh = ds.copy();
    sh.shuffle(123);
    System.out.println("shuffled sums " + sh.getFeatures().sumNumber().floatValue() + " "
        + sh.getLabels().sum(0));
    // each shuffled row still pairs its features with its labels: argmax of labels is a function of the row
    INDArray rowKey = sh.getFeatures().getColumn(0);
    boolean paired = true;
    for (int i = 0; i < 10; i++) {
      for (int j = 0; j < 10; j++) {
        if (ds.getFeatures().getDouble(j, 0) == rowKey.getDouble(i)) {
          paired &= ds.getLabels().getRow(j).equals(sh.getLabels().getRow(i));
        }
      }
    }
    System.out.println("shuffle keeps pairs " + paired);

    NormalizerStandardize std = new NormalizerStandardize();
    DataSet a = data();
    std.fit(a);
    show("mean", std.getMean());
    show("std", std.getStd());
    std.transform(a);
    show("standardized", a.getFeatures());
    show("standardized mean0", a.getFeatures().mean(0));
    std.revert(a);
    show("reverted", a.getFeatures());

    NormalizerStandardize iterStd = new NormalizerStandardize();
    DataSetIterator it = new ViewIterator(data(), 3);
    iterStd.fit(it);
    show("iterator mean", iterStd.getMean());
    show("iterator std", iterStd.getStd());
    it.setPreProcessor(iterStd);
    show("preprocessed batch", it.next().getFeatures());

    NormalizerMinMaxScaler mm = new NormalizerMinMaxScaler(-1, 1);
    DataSet b = data();
    mm.fitLabel(true);
    mm.fit(b);
    show("min", mm.getMin());
    show("max", mm.getMax());
    mm.preProcess(b);
    show("minmax features", b.getFeatures());
    show("minmax labels", b.getLabels());
    mm.revertFeatures(b.getFeatures());
    show("minmax reverted", b.getFeatures());

    ImagePreProcessingScaler img = new ImagePreProcessingScaler(0, 1);
    INDArray pixels = Nd4j.linspace(0, 255, 12).reshape(1, 1, 3, 4);
    img.transform(pixels);
    show("image scaled", pixels);
    img.revertFeatures(pixels);
    show("image reverted", pixels);
  }
}
