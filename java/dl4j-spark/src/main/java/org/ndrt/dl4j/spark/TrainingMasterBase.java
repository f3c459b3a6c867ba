package org.ndrt.dl4j.spark;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.deeplearning4j.spark.api.TrainingMaster;
import org.deeplearning4j.spark.api.TrainingResult;
import org.deeplearning4j.spark.api.TrainingWorker;
import org.deeplearning4j.spark.impl.graph.SparkComputationGraph;
import org.deeplearning4j.spark.impl.multilayer.SparkDl4jMultiLayer;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.MultiDataSet;

/**
 * What Deeplearning4j's two training masters share in the drop-in: handing the Spark network's org.ndrt
 * network and its RDD to the org.ndrt.spark trainer, the driver-side listeners, and the options ndrt
 * refuses or has nothing to do for.
 */
public abstract class TrainingMasterBase implements TrainingMaster<TrainingResult, TrainingWorker<TrainingResult>> {
  private final List<TrainingListener> listeners = new ArrayList<>();

  @Override
  public void executeTraining(SparkDl4jMultiLayer network, JavaRDD<DataSet> trainingData) {
    org.deeplearning4j.nn.multilayer.MultiLayerNetwork n = network.getNetwork();
    if (!listeners.isEmpty()) {
      n.setListeners(listeners);
    }
    ndrtTrainer().fit(network.getSparkContext(), n.ndrtNetwork(), trainingData, Records.DATA_SET);
    network.setScore(ndrtTrainer().lastScore());
  }

  @Override
  public void executeTraining(SparkComputationGraph graph, JavaRDD<DataSet> trainingData) {
    org.deeplearning4j.nn.graph.ComputationGraph g = graph.getNetwork();
    if (!listeners.isEmpty()) {
      g.setListeners(listeners);
    }
    ndrtTrainer().fit(graph.getSparkContext(), g.ndrtGraph(), trainingData, Records.DATA_SET);
    graph.setScore(ndrtTrainer().lastScore());
  }

  @Override
  public void executeTrainingMDS(SparkComputationGraph graph, JavaRDD<MultiDataSet> trainingData) {
    org.deeplearning4j.nn.graph.ComputationGraph g = graph.getNetwork();
    if (!listeners.isEmpty()) {
      g.setListeners(listeners);
    }
    ndrtTrainer().fit(graph.getSparkContext(), g.ndrtGraph(), trainingData, Records.MULTI_DATA_SET);
    graph.setScore(ndrtTrainer().lastScore());
  }

  @Override
  public void setListeners(Collection<TrainingListener> ls) {
    listeners.clear();
    if (ls != null) {
      listeners.addAll(ls);
    }
  }

  @Override
  public void setCollectTrainingStats(boolean collectTrainingStats) {
    if (collectTrainingStats) {
      throw new UnsupportedOperationException("collectTrainingStats(true): ndrt does not collect Deeplearning4j's "
          + "Spark training statistics (SparkTrainingStats)");
    }
  }

  @Override
  public boolean getIsCollectTrainingStats() {
    return false;
  }

  /** Drops the trainer's cached copy of the last RDD fitted (ndrt writes no files); true. */
  @Override
  public boolean deleteTempFiles(JavaSparkContext sc) {
    ndrtTrainer().release();
    return true;
  }

  @Override
  public boolean deleteTempFiles(SparkContext sc) {
    ndrtTrainer().release();
    return true;
  }

  @Override
  public String toJson() {
    throw new UnsupportedOperationException(getClass().getSimpleName() + ".toJson: ndrt does not write training "
        + "masters as JSON");
  }
}
