package org.deeplearning4j.spark.impl.paramavg;

import org.apache.spark.storage.StorageLevel;
import org.deeplearning4j.spark.api.RDDTrainingApproach;
import org.deeplearning4j.spark.api.Repartition;
import org.deeplearning4j.spark.api.RepartitionStrategy;
import org.ndrt.dl4j.spark.TrainingMasterBase;
import org.ndrt.spark.ParameterAveragingTrainer;
import org.ndrt.spark.SparkTrainer;

/**
 * Deeplearning4j's parameter-averaging training master over {@link ParameterAveragingTrainer}: workers fit
 * {@code averagingFrequency} minibatches of {@code batchSizePerWorker} examples each, then the driver
 * averages their parameters (and updater state with saveUpdater), all through Spark (broadcast, tree
 * aggregation of depth {@code aggregationDepth}).
 *
 * <p>Where ndrt differs: instead of exporting the RDD to files (any RDDTrainingApproach; no exportDirectory)
 * it stages it once into a shuffled, cached copy that the next fit on the same RDD reuses and {@link
 * #deleteTempFiles} drops; that cache's storage level is MEMORY_ONLY (deserialised: every round walks the
 * partitions) unless one is given; every RepartitionStrategy deals the records round-robin;
 * workerPrefetchNumBatches and rngSeed are kept and reported by the getters but change nothing
 * (minibatches are cut from cached records; no random split is drawn: worker p fits its partition's
 * minibatches in order).
 */
public class ParameterAveragingTrainingMaster extends TrainingMasterBase {
  private final Builder b;
  private final ParameterAveragingTrainer trainer;

  private ParameterAveragingTrainingMaster(Builder b) {
    this.b = b;
    ParameterAveragingTrainer.Repartition r = b.repartition == Repartition.Never ? ParameterAveragingTrainer.Repartition.NEVER
        : b.repartition == Repartition.Always ? ParameterAveragingTrainer.Repartition.ALWAYS
        : ParameterAveragingTrainer.Repartition.NUM_PARTITIONS_WORKERS_DIFFERS;
    this.trainer = new ParameterAveragingTrainer(b.numWorkers == null ? 0 : b.numWorkers, b.batchSizePerWorker,
        b.averagingFrequency, b.saveUpdater, b.aggregationDepth, r, b.storageLevel == null ? StorageLevel.MEMORY_ONLY() : b.storageLevel);
    setCollectTrainingStats(b.collectTrainingStats);
  }

  @Override
  public SparkTrainer ndrtTrainer() {
    return trainer;
  }

  public boolean isSaveUpdater() {
    return b.saveUpdater;
  }

  public Integer getNumWorkers() {
    return b.numWorkers;
  }

  public int getRddDataSetNumExamples() {
    return b.rddDataSetNumExamples;
  }

  public int getBatchSizePerWorker() {
    return b.batchSizePerWorker;
  }

  public int getAveragingFrequency() {
    return b.averagingFrequency;
  }

  public int getAggregationDepth() {
    return b.aggregationDepth;
  }

  public int getPrefetchNumBatches() {
    return b.prefetchNumBatches;
  }

  @Override
  public String toString() {
    return "ParameterAveragingTrainingMaster(numWorkers=" + b.numWorkers + ", batchSizePerWorker="
        + b.batchSizePerWorker + ", averagingFrequency=" + b.averagingFrequency + ", saveUpdater=" + b.saveUpdater
        + ", aggregationDepth=" + b.aggregationDepth + ", repartition=" + b.repartition + "/" + b.repartitionStrategy
        + ")";
  }

  public static class Builder {
    private final Integer numWorkers;
    private final int rddDataSetNumExamples;
    private int batchSizePerWorker = 16;
    private int averagingFrequency = 5;
    private int aggregationDepth = 2;
    private int prefetchNumBatches;
    private boolean saveUpdater = true;
    private Repartition repartition = Repartition.Always;
    private RepartitionStrategy repartitionStrategy = RepartitionStrategy.Balanced;
    private StorageLevel storageLevel;
    private boolean collectTrainingStats;
    private long rngSeed;

    /** @param rddDataSetNumExamples how many examples each DataSet of the RDD holds */
    public Builder(int rddDataSetNumExamples) {
      this(null, rddDataSetNumExamples);
    }

    /** @param numWorkers workers to train on (null: Spark's default parallelism) */
    public Builder(Integer numWorkers, int rddDataSetNumExamples) {
      if (numWorkers != null && numWorkers <= 0) {
        throw new IllegalArgumentException("Invalid number of workers: " + numWorkers + " (must be >= 1, or null)");
      }
      if (rddDataSetNumExamples <= 0) {
        throw new IllegalArgumentException("Invalid rddDataSetNumExamples: " + rddDataSetNumExamples + " (must be >= 1)");
      }
      this.numWorkers = numWorkers;
      this.rddDataSetNumExamples = rddDataSetNumExamples;
    }

    /** Examples each worker fits per minibatch (records are cut or joined to this size). */
    public Builder batchSizePerWorker(int batchSizePerWorker) {
      this.batchSizePerWorker = positive(batchSizePerWorker, "batchSizePerWorker");
      return this;
    }

    /** Minibatches each worker fits between two averagings. */
    public Builder averagingFrequency(int averagingFrequency) {
      this.averagingFrequency = positive(averagingFrequency, "averagingFrequency");
      return this;
    }

    /** Depth of Spark's tree aggregation of the workers' results. */
    public Builder aggregationDepth(int aggregationDepth) {
      this.aggregationDepth = positive(aggregationDepth, "aggregationDepth");
      return this;
    }

    /** Kept for Deeplearning4j's API; ndrt's workers cut minibatches from cached records and prefetch nothing. */
    public Builder workerPrefetchNumBatches(int prefetchNumBatches) {
      if (prefetchNumBatches < 0) {
        throw new IllegalArgumentException("workerPrefetchNumBatches: must be >= 0, got " + prefetchNumBatches);
      }
      this.prefetchNumBatches = prefetchNumBatches;
      return this;
    }

    /** Whether the updater state (momentum, Adam's moments) is averaged and carried between rounds. */
    public Builder saveUpdater(boolean saveUpdater) {
      this.saveUpdater = saveUpdater;
      return this;
    }

    /** Deeplearning4j's spelling. */
    public Builder repartionData(Repartition repartition) {
      if (repartition == null) {
        throw new IllegalArgumentException("repartionData: null");
      }
      this.repartition = repartition;
      return this;
    }

    public Builder repartitionStrategy(RepartitionStrategy strategy) {
      if (strategy == null) {
        throw new IllegalArgumentException("repartitionStrategy: null");
      }
      this.repartitionStrategy = strategy;
      return this;
    }

    /** The storage level of the training RDD's cache during a fit. */
    public Builder storageLevel(StorageLevel storageLevel) {
      this.storageLevel = storageLevel;
      return this;
    }

    /** Either value trains directly on the cached RDD (see the class comment). */
    public Builder rddTrainingApproach(RDDTrainingApproach approach) {
      if (approach == null) {
        throw new IllegalArgumentException("rddTrainingApproach: null");
      }
      return this;
    }

    /** Kept for Deeplearning4j's API: ndrt exports nothing. */
    public Builder exportDirectory(String exportDirectory) {
      return this;
    }

    /** Kept for Deeplearning4j's API: ndrt draws no random split. */
    public Builder rngSeed(long rngSeed) {
      this.rngSeed = rngSeed;
      return this;
    }

    /** true is refused at build: ndrt does not collect SparkTrainingStats. */
    public Builder collectTrainingStats(boolean collectTrainingStats) {
      this.collectTrainingStats = collectTrainingStats;
      return this;
    }

    public ParameterAveragingTrainingMaster build() {
      return new ParameterAveragingTrainingMaster(this);
    }

    private static int positive(int v, String what) {
      if (v <= 0) {
        throw new IllegalArgumentException("Invalid input: " + what + " must be >= 1, got " + v);
      }
      return v;
    }
  }
}
