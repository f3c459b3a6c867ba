package org.ndrt.spark;

import java.util.Collections;
import java.util.Iterator;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.storage.StorageLevel;
import org.ndrt.data.DataSet;
import org.ndrt.data.MultiDataSet;
import org.ndrt.nn.ComputationGraph;
import org.ndrt.nn.Model;
import org.ndrt.nn.RandomStreams;
import org.ndrt.nn.TrainerSupport;
import org.ndrt.nn.listeners.TrainingListener;

/**
 * Parameter averaging through Spark, as Deeplearning4j's ParameterAveragingTrainingMaster does it: the
 * driver broadcasts the parameters (and with saveUpdater the updater state), every worker fits {@code
 * averagingFrequency} minibatches of {@code batchSizePerWorker} examples of its partition on its own
 * replica, Spark's tree aggregation sums what the workers give back, and the driver's network takes the
 * average. One Spark job per round.
 *
 * <p>Rounds: the data is staged once (StagedData: a shuffled, cached copy, reused while the same RDD is
 * fitted again, until {@link #release}); worker {@code p} fits, in round {@code r}, the minibatches
 * {@code r*k .. r*k+k-1} of partition {@code p} (k = averagingFrequency); a partition with nothing left
 * for a round sits it out, and the average is over the workers that fitted. With averaging every step,
 * plain SGD and equal minibatches, a round is the step one process makes on the union of the workers'
 * minibatches (the loss is a mean), up to f32 rounding.
 *
 * <p>Partitions: one per worker. The number of workers is the one given, or Spark's default
 * parallelism. The records are dealt round-robin into one partition per worker (Deeplearning4j's
 * Balanced strategy) when {@link Repartition} says so and the partitions are not already one per worker
 * with example counts within one minibatch of each other; otherwise each partition is kept as it is.
 *
 * <p>The driver's network: after each round its parameters (updater state) are the average, its
 * iteration and updater-step counts advance by the most minibatches a worker fitted, its random stream
 * offsets by the furthest worker's (worker p draws dropout masks from stream p); its listeners hear
 * each round once per minibatch with the round's mean score. Mixed precision is refused.
 */
public final class ParameterAveragingTrainer implements SparkTrainer {
  /** When to repartition the RDD before fitting (Deeplearning4j's Repartition). */
  public enum Repartition { NEVER, ALWAYS, NUM_PARTITIONS_WORKERS_DIFFERS }

  private final int numWorkers;
  private final int batchSizePerWorker;
  private final int averagingFrequency;
  private final boolean saveUpdater;
  private final int aggregationDepth;
  private final Repartition repartition;
  private final StorageLevel storageLevel;
  private double lastScore = Double.NaN;
  private long rounds;
  private final StagedData.Cache staged = new StagedData.Cache();

  /**
   * @param numWorkers workers (partitions) to train on; 0: Spark's default parallelism
   * @param aggregationDepth depth of Spark's tree aggregation (2 is Spark's default)
   */
  public ParameterAveragingTrainer(int numWorkers, int batchSizePerWorker, int averagingFrequency,
      boolean saveUpdater, int aggregationDepth, Repartition repartition, StorageLevel storageLevel) {
    if (numWorkers < 0 || batchSizePerWorker <= 0 || averagingFrequency <= 0 || aggregationDepth <= 0) {
      throw new IllegalArgumentException("ParameterAveragingTrainer: need numWorkers >= 0 (0: Spark's default), "
          + "batchSizePerWorker, averagingFrequency and aggregationDepth > 0; got " + numWorkers + ", "
          + batchSizePerWorker + ", " + averagingFrequency + ", " + aggregationDepth);
    }
    if (repartition == null || storageLevel == null) {
      throw new IllegalArgumentException("ParameterAveragingTrainer: repartition and storageLevel must not be null");
    }
    this.numWorkers = numWorkers;
    this.batchSizePerWorker = batchSizePerWorker;
    this.averagingFrequency = averagingFrequency;
    this.saveUpdater = saveUpdater;
    this.aggregationDepth = aggregationDepth;
    this.repartition = repartition;
    this.storageLevel = storageLevel;
  }

  @Override
  public double lastScore() {
    return lastScore;
  }

  /** Rounds run over all fits so far (one Spark job each). */
  public long rounds() {
    return rounds;
  }

  @Override
  public <T> void fit(JavaSparkContext sc, Model model, JavaRDD<T> data, RecordConverter<T> converter) {
    if (sc == null || model == null || data == null || converter == null) {
      throw new IllegalArgumentException("fit: the Spark context, network, data and converter must not be null");
    }
    if (TrainerSupport.isMixedPrecision(model)) {
      throw new UnsupportedOperationException("Spark training of a mixed-precision (F16/BF16) network: the workers "
          + "would have to agree on the steps loss scaling skips; train it in FLOAT");
    }
    int workers = numWorkers > 0 ? numWorkers : sc.defaultParallelism();
    StagedData<T> s = staged.get(data, converter, workers, this::balance, storageLevel);
    JavaRDD<T> d = s.rdd;
    long[] counts = s.counts;
    if (Partitions.sum(counts) == 0) {
      throw new IllegalArgumentException("fit: the RDD holds no examples");
    }
    long mostMinibatches = 0;
    for (long c : counts) {
      mostMinibatches = Math.max(mostMinibatches, (c + batchSizePerWorker - 1) / batchSizePerWorker);
    }
    long roundsThisEpoch = (mostMinibatches + averagingFrequency - 1) / averagingFrequency;
    ModelSpec spec = ModelSpec.of(model);
    int stream = RandomStreams.stream(model);
    int epoch = model.getEpochCount();
    for (TrainingListener l : model.getListeners()) {
      l.onEpochStart(model, epoch, roundsThisEpoch * averagingFrequency, batchSizePerWorker * workers);
    }
    for (long r = 0; r < roundsThisEpoch; ++r) {
      round(sc, model, d, converter, spec, r, stream);
    }
    model.incrementEpochCount();
    for (TrainingListener l : model.getListeners()) {
      l.onEpochEnd(model, epoch);
    }
  }

  /** Whether the records are to be dealt round-robin into one partition per worker (the class comment). */
  private <T> boolean balance(JavaRDD<T> data, RecordConverter<T> converter, int workers) {
    int partitions = data.getNumPartitions();
    if (repartition == Repartition.NEVER) {
      return false;
    }
    if (repartition == Repartition.NUM_PARTITIONS_WORKERS_DIFFERS || partitions != workers) {
      return partitions != workers;
    }
    return !Partitions.balanced(Partitions.exampleCounts(data, converter), workers, batchSizePerWorker);
  }

  @Override
  public void release() {
    staged.release();
  }

  private <T> void round(JavaSparkContext sc, Model model, JavaRDD<T> d, RecordConverter<T> converter,
      ModelSpec spec, long r, int stream) {
    Broadcast<ModelState> start = sc.broadcast(ModelState.of(model, saveUpdater));
    long skip = r * averagingFrequency * (long) batchSizePerWorker;
    int k = averagingFrequency;
    int batch = batchSizePerWorker;
    boolean withUpdater = saveUpdater;
    RoundResult sum;
    try {
      sum = d.mapPartitionsWithIndex((p, records) -> work(spec, start.value(), p, records, converter, skip, k,
              batch, withUpdater), true)
          .treeAggregate(new RoundResult(), RoundResult::add, RoundResult::add, aggregationDepth);
    } finally {
      start.destroy();
    }
    ++rounds;
    if (sum.workers == 0) {
      return;  // cannot happen: every round has a worker with minibatches left
    }
    sum.average().applyTo(model);
    RandomStreams.setStream(model, stream);
    lastScore = sum.scoreSum / sum.minibatches;
    long last = model.getIterationCount();
    int globalBatch = (int) Math.min(Integer.MAX_VALUE, sum.examples / Math.max(1, sum.maxMinibatches));
    for (TrainingListener l : model.getListeners()) {
      for (long i = last - sum.maxMinibatches + 1; i <= last; ++i) {
        l.iterationDone(model, i, model.getEpochCount(), lastScore, globalBatch);
      }
    }
  }

  /** One worker's round: its replica from the broadcast state fits up to k minibatches of its partition. */
  private static <T> Iterator<RoundResult> work(ModelSpec spec, ModelState start, int partition, Iterator<T> records,
      RecordConverter<T> converter, long skip, int k, int batch, boolean withUpdater) {
    Minibatcher<T> mb = new Minibatcher<>(records, converter, batch);
    try {
      mb.skip(skip);
      if (!mb.hasNext()) {
        return Collections.emptyIterator();
      }
      Model m = Replicas.borrow(spec);
      try {
        start.applyTo(m);
        RandomStreams.setStream(m, partition);
        int n = 0;
        long examples = 0;
        double scores = 0;
        while (n < k && mb.hasNext()) {
          try (MultiDataSet b = mb.next()) {
            fitOne(m, b);
            examples += b.numExamples();
          }
          scores += m.score();
          ++n;
        }
        RoundResult res = RoundResult.of(m, withUpdater, n, examples, scores);
        Replicas.giveBack(spec, m);
        return Collections.singletonList(res).iterator();
      } catch (RuntimeException | Error e) {
        m.close();
        throw e;
      }
    } finally {
      mb.close();
    }
  }

  /** One minibatch: a graph fits the MultiDataSet, a MultiLayerNetwork its single DataSet. */
  static void fitOne(Model m, MultiDataSet b) {
    if (m instanceof ComputationGraph) {
      ((ComputationGraph) m).fit(b);
      return;
    }
    try (DataSet ds = b.toDataSet()) {
      m.fit(ds);
    }
  }
}
