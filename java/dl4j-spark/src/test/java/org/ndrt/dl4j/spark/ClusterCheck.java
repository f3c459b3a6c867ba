package org.ndrt.dl4j.spark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.optimize.api.BaseTrainingListener;
import org.deeplearning4j.spark.api.Repartition;
import org.deeplearning4j.spark.impl.multilayer.SparkDl4jMultiLayer;
import org.deeplearning4j.spark.impl.paramavg.ParameterAveragingTrainingMaster;
import org.deeplearning4j.spark.parameterserver.training.SharedTrainingMaster;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.learning.config.Sgd;

/**
 * The standalone-cluster checks (tests/standalone_cluster.sh submits this with SparkSubmit to a master and
 * two workers it started): {@code averaging} — parameter averaging every step with SGD on two executor JVMs
 * equals one process on the global batch; {@code sharing} — gradient sharing with Adam between the two
 * executors (TCP between the JVMs) equals one process on the global batch; {@code kill} — an executor killed during fit: Spark runs its tasks
 * again elsewhere and fit ends, or fit fails with Spark's exception; either way it ends. Exit status 0 when
 * the check holds.
 */
public final class ClusterCheck {
  private ClusterCheck() {}

  public static void main(String[] args) throws Exception {
    String mode = args.length > 0 ? args[0] : "";
    JavaSparkContext sc = new JavaSparkContext(new SparkConf().setAppName("ndrt cluster check " + mode));
    int status;
    try {
      status = mode.equals("averaging") ? averaging(sc, false) : mode.equals("sharing") ? averaging(sc, true)
          : mode.equals("kill") ? kill(sc) : usage();
    } finally {
      sc.stop();
    }
    System.exit(status);
  }

  private static int usage() {
    System.err.println("usage: ClusterCheck averaging|sharing|kill");
    return 2;
  }

  /** The process ids of the executors, from tasks that wait long enough for every executor to take one. */
  private static Set<Long> executorPids(JavaSparkContext sc, int tasks) {
    List<Integer> xs = new ArrayList<>();
    for (int i = 0; i < tasks; ++i) {
      xs.add(i);
    }
    return new TreeSet<>(sc.parallelize(xs, tasks).map(x -> {
      Thread.sleep(1500);
      return ProcessHandle.current().pid();
    }).collect());
  }

  private static int averaging(JavaSparkContext sc, boolean sharing) {
    Set<Long> pids = executorPids(sc, 2);
    long me = ProcessHandle.current().pid();
    System.out.println("averaging: executor processes " + pids + ", driver " + me);
    if (pids.size() != 2 || pids.contains(me)) {
      System.err.println("averaging: expected two executor JVMs apart from the driver");
      return 1;
    }
    List<DataSet> records = SparkTestSupport.data(12, 8, 11);
    org.nd4j.linalg.learning.config.IUpdater u = sharing ? new Adam(0.01) : new Sgd(0.2);
    MultiLayerNetwork driver = new MultiLayerNetwork(SparkTestSupport.mlp(u, 1e-3));
    driver.init();
    MultiLayerNetwork reference = new MultiLayerNetwork(SparkTestSupport.mlp(u, 1e-3));
    reference.init();
    org.deeplearning4j.spark.api.TrainingMaster<?, ?> tm = sharing
        ? new SharedTrainingMaster.Builder(2).batchSizePerWorker(8).build()
        : new ParameterAveragingTrainingMaster.Builder(2, 8).batchSizePerWorker(8).averagingFrequency(1)
            .repartionData(Repartition.Never).build();
    new SparkDl4jMultiLayer(sc, driver, tm).fit(sc.parallelize(records, 2));
    for (int r = 0; r < 6; ++r) {
      reference.fit(DataSet.merge(Arrays.asList(records.get(r), records.get(6 + r))));
    }
    double d = SparkTestSupport.relDiff(driver.params(), reference.params());
    System.out.println((sharing ? "sharing" : "averaging") + ": two executors vs one process, relative difference "
        + d);
    return d < 1e-5 && driver.getIterationCount() == 6 ? 0 : 1;
  }

  private static int kill(JavaSparkContext sc) {
    List<Long> pids = new ArrayList<>(executorPids(sc, 2));
    System.out.println("kill: executor processes " + pids);
    if (pids.size() != 2) {
      System.err.println("kill: expected two executors");
      return 1;
    }
    List<DataSet> train = SparkTestSupport.data(200, 16, 12);
    JavaRDD<DataSet> rdd = sc.parallelize(train, 2);
    MultiLayerNetwork net = new MultiLayerNetwork(SparkTestSupport.mlp(new Nesterovs(0.05, 0.9), 1e-4));
    net.init();
    ParameterAveragingTrainingMaster tm = new ParameterAveragingTrainingMaster.Builder(2, 16)
        .batchSizePerWorker(16).averagingFrequency(2).build();
    SparkDl4jMultiLayer spark = new SparkDl4jMultiLayer(sc, net, tm);
    AtomicLong iterations = new AtomicLong();
    long victim = pids.get(1);
    spark.setListeners(new BaseTrainingListener() {
      @Override
      public void iterationDone(Model model, int iteration, int epoch) {
        if (iterations.incrementAndGet() == 10) {  // after the fifth round: kill one executor
          System.out.println("kill: killing executor process " + victim + " at iteration " + iteration);
          ProcessHandle.of(victim).ifPresent(ProcessHandle::destroyForcibly);
        }
      }
    });
    long t0 = System.nanoTime();
    try {
      for (int e = 0; e < 3; ++e) {
        spark.fit(rdd);
      }
    } catch (Exception e) {  // Spark's exceptions are checked ones thrown undeclared from Scala
      System.out.println("kill: fit failed after " + (System.nanoTime() - t0) / 1e9 + " s with " + e);
      return e instanceof org.apache.spark.SparkException ? 0 : 1;
    }
    Evaluation ev = spark.evaluate(rdd);
    System.out.println("kill: fit went on after the executor was killed (" + (System.nanoTime() - t0) / 1e9
        + " s), " + iterations.get() + " iterations, accuracy " + ev.accuracy());
    return iterations.get() >= 10 && net.getEpochCount() == 3 && ev.accuracy() > 0.8 ? 0 : 1;
  }
}
