package org.ndrt.dl4j.spark;

import java.util.Iterator;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.nd4j.evaluation.IEvaluation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.ndrt.Tensor;
import org.ndrt.dl4j.Tensors;
import org.ndrt.nn.ComputationGraph;
import org.ndrt.nn.Model;
import org.ndrt.nn.MultiLayerNetwork;
import org.ndrt.spark.RecordConverter;
import org.ndrt.spark.SparkModels;

/**
 * The Spark networks' evaluate and calculateScore: each partition on a replica of the driver's
 * network (org.ndrt.spark.SparkModels), records cut into minibatches of at most {@code batchSize}
 * examples; evaluations merged with their own {@code merge}, scores summed. For a graph the first
 * output is evaluated against the first labels, as Deeplearning4j's single-output evaluation does.
 */
public final class SparkEvaluation {
  private SparkEvaluation() {}

  @SuppressWarnings({"unchecked", "rawtypes"})
  public static <R, T extends IEvaluation> T[] evaluate(JavaSparkContext sc, Model model, JavaRDD<R> data,
      RecordConverter<R> converter, int batchSize, T[] evaluations) {
    if (evaluations == null || evaluations.length == 0) {
      throw new IllegalArgumentException("doEvaluation: give at least one evaluation");
    }
    checkBatch(batchSize);
    try {
      return SparkModels.mapPartitions(sc, model, data, (replica, records) -> {
        forEachBatch(records, converter, batchSize, b -> {
          INDArray out = Tensors.out(output(replica, b));
          INDArray labels = Tensors.out(b.labels(0).share());
          INDArray mask = b.labelsMasks()[0] == null ? null : Tensors.out(b.labelsMasks()[0].share());
          for (T e : evaluations) {
            e.eval(labels, out, mask);
          }
        });
        return evaluations;
      }, (a, b) -> {
        for (int i = 0; i < a.length; ++i) {
          ((IEvaluation) a[i]).merge(b[i]);
        }
        return a;
      }, evaluations);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("Spark evaluation failed: " + e.getMessage(), e);
    }
  }

  /** The examples' mean score ({@code average}) or their sum: each minibatch's score times its size. */
  public static <R> double score(JavaSparkContext sc, Model model, JavaRDD<R> data, RecordConverter<R> converter,
      boolean average, int batchSize) {
    checkBatch(batchSize);
    double[] sumAndCount;
    try {
      sumAndCount = SparkModels.mapPartitions(sc, model, data, (replica, records) -> {
        double[] s = new double[2];
        forEachBatch(records, converter, batchSize, b -> {
          s[0] += score(replica, b) * b.numExamples();
          s[1] += b.numExamples();
        });
        return s;
      }, (a, b) -> new double[] {a[0] + b[0], a[1] + b[1]}, new double[2]);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("Spark scoring failed: " + e.getMessage(), e);
    }
    if (sumAndCount[1] == 0) {
      throw new IllegalArgumentException("calculateScore: the RDD holds no examples");
    }
    return average ? sumAndCount[0] / sumAndCount[1] : sumAndCount[0];
  }

  private static void checkBatch(int batchSize) {
    if (batchSize <= 0) {
      throw new IllegalArgumentException("the evaluation batch size must be > 0, got " + batchSize);
    }
  }

  private interface BatchConsumer {
    void accept(org.ndrt.data.MultiDataSet batch);
  }

  /** Each record in pieces of at most batchSize examples (views), closed after use. */
  private static <R> void forEachBatch(Iterator<R> records, RecordConverter<R> converter, int batchSize,
      BatchConsumer f) {
    while (records.hasNext()) {
      try (org.ndrt.data.MultiDataSet d = converter.convert(records.next())) {
        int n = d.numExamples();
        if (n <= batchSize) {
          f.accept(d);
          continue;
        }
        for (int from = 0; from < n; from += batchSize) {
          try (org.ndrt.data.MultiDataSet part = d.rows(from, Math.min(n, from + batchSize))) {
            f.accept(part);
          }
        }
      }
    }
  }

  private static Tensor output(Model m, org.ndrt.data.MultiDataSet b) {
    if (m instanceof ComputationGraph) {
      Tensor[] outs = ((ComputationGraph) m).output(b.features(), b.featuresMasks(), b.labelsMasks(), false);
      for (int i = 1; i < outs.length; ++i) {
        outs[i].close();
      }
      return outs[0];
    }
    return ((MultiLayerNetwork) m).output(b.features(0), false, b.featuresMasks()[0], b.labelsMasks()[0]);
  }

  private static double score(Model m, org.ndrt.data.MultiDataSet b) {
    if (m instanceof ComputationGraph) {
      return ((ComputationGraph) m).score(b);
    }
    try (org.ndrt.data.DataSet ds = b.toDataSet()) {
      return m.score(ds);
    }
  }
}
