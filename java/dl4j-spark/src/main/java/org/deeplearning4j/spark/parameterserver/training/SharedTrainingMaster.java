package org.deeplearning4j.spark.parameterserver.training;

import java.time.Duration;
import org.apache.spark.storage.StorageLevel;
import org.deeplearning4j.optimize.solvers.accumulation.encoding.ResidualPostProcessor;
import org.deeplearning4j.optimize.solvers.accumulation.encoding.ThresholdAlgorithm;
import org.deeplearning4j.optimize.solvers.accumulation.encoding.threshold.AdaptiveThresholdAlgorithm;
import org.deeplearning4j.spark.api.RDDTrainingApproach;
import org.deeplearning4j.spark.api.Repartition;
import org.deeplearning4j.spark.api.RepartitionStrategy;
import org.nd4j.parameterserver.distributed.conf.VoidConfiguration;
import org.ndrt.dl4j.spark.TrainingMasterBase;
import org.ndrt.spark.GradientSharingTrainer;
import org.ndrt.spark.SparkTrainer;

/**
 * Deeplearning4j's gradient-sharing training master over {@link GradientSharingTrainer}: the workers run
 * together in one Spark barrier stage per epoch and average their gradients every step over TCP, so every
 * step is the one a single process makes on the union of their minibatches of {@code batchSizePerWorker}.
 *
 * <p>Where ndrt differs from Deeplearning4j: gradients are shared exact and synchronously (Deeplearning4j
 * sends threshold-quantised updates asynchronously), so the threshold algorithm, residual post-processor
 * and updates threshold are kept for the getters only; the VoidConfiguration's ports and network mask are
 * not used (see VoidConfiguration); one worker per Spark task slot (workersPerNode is kept, not used);
 * the RDD is trained on directly, cached (MEMORY_ONLY unless a storage level is given), always balanced
 * into one partition per worker; the workers wait for each other up to {@code ndrt.spark.timeoutSeconds}
 * (a system property; default 120) before failing the stage.
 */
public class SharedTrainingMaster extends TrainingMasterBase {
  private final Builder b;
  private final GradientSharingTrainer trainer;

  private SharedTrainingMaster(Builder b) {
    this.b = b;
    long timeout = Long.getLong("ndrt.spark.timeoutSeconds", 120);
    this.trainer = new GradientSharingTrainer(b.numWorkers == null ? 0 : b.numWorkers, b.batchSizePerWorker,
        Duration.ofSeconds(timeout), b.storageLevel == null ? StorageLevel.MEMORY_ONLY() : b.storageLevel);
    setCollectTrainingStats(b.collectTrainingStats);
  }

  @Override
  public SparkTrainer ndrtTrainer() {
    return trainer;
  }

  public VoidConfiguration getVoidConfiguration() {
    return b.voidConfiguration;
  }

  public ThresholdAlgorithm getThresholdAlgorithm() {
    return b.thresholdAlgorithm;
  }

  public int getBatchSizePerWorker() {
    return b.batchSizePerWorker;
  }

  public int getWorkersPerNode() {
    return b.workersPerNode;
  }

  public Integer getNumWorkers() {
    return b.numWorkers;
  }

  @Override
  public String toString() {
    return "SharedTrainingMaster(numWorkers=" + b.numWorkers + ", batchSizePerWorker=" + b.batchSizePerWorker
        + ", exact gradient sharing over TCP)";
  }

  public static class Builder {
    private final VoidConfiguration voidConfiguration;
    private final Integer numWorkers;
    private final int rddDataSetNumExamples;
    private ThresholdAlgorithm thresholdAlgorithm = new AdaptiveThresholdAlgorithm();
    private ResidualPostProcessor residualPostProcessor;
    private int batchSizePerWorker = 16;
    private int workersPerNode = -1;
    private StorageLevel storageLevel;
    private boolean collectTrainingStats;

    public Builder(int rddDataSetNumExamples) {
      this(VoidConfiguration.builder().build(), null, new AdaptiveThresholdAlgorithm(), rddDataSetNumExamples);
    }

    public Builder(VoidConfiguration voidConfiguration, int rddDataSetNumExamples) {
      this(voidConfiguration, null, new AdaptiveThresholdAlgorithm(), rddDataSetNumExamples);
    }

    public Builder(ThresholdAlgorithm thresholdAlgorithm, int rddDataSetNumExamples) {
      this(VoidConfiguration.builder().build(), null, thresholdAlgorithm, rddDataSetNumExamples);
    }

    public Builder(VoidConfiguration voidConfiguration, ThresholdAlgorithm thresholdAlgorithm,
        int rddDataSetNumExamples) {
      this(voidConfiguration, null, thresholdAlgorithm, rddDataSetNumExamples);
    }

    public Builder(VoidConfiguration voidConfiguration, Integer numWorkers, double threshold,
        int rddDataSetNumExamples) {
      this(voidConfiguration, numWorkers, new AdaptiveThresholdAlgorithm(threshold), rddDataSetNumExamples);
    }

    /** @param numWorkers workers (barrier tasks); null: Spark's default parallelism */
    public Builder(VoidConfiguration voidConfiguration, Integer numWorkers, ThresholdAlgorithm thresholdAlgorithm,
        int rddDataSetNumExamples) {
      if (numWorkers != null && numWorkers <= 0) {
        throw new IllegalArgumentException("Invalid number of workers: " + numWorkers + " (must be >= 1, or null)");
      }
      if (rddDataSetNumExamples <= 0) {
        throw new IllegalArgumentException("Invalid rddDataSetNumExamples: " + rddDataSetNumExamples + " (must be >= 1)");
      }
      this.voidConfiguration = voidConfiguration;
      this.numWorkers = numWorkers;
      this.thresholdAlgorithm = thresholdAlgorithm;
      this.rddDataSetNumExamples = rddDataSetNumExamples;
    }

    public Builder batchSizePerWorker(int batchSizePerWorker) {
      if (batchSizePerWorker <= 0) {
        throw new IllegalArgumentException("Invalid input: batchSizePerWorker must be >= 1, got " + batchSizePerWorker);
      }
      this.batchSizePerWorker = batchSizePerWorker;
      return this;
    }

    /** Kept for Deeplearning4j's API: ndrt runs one worker per Spark task slot. */
    public Builder workersPerNode(int workersPerNode) {
      this.workersPerNode = workersPerNode;
      return this;
    }

    /** Kept for the getter: ndrt shares exact gradients (class comment). */
    public Builder thresholdAlgorithm(ThresholdAlgorithm thresholdAlgorithm) {
      this.thresholdAlgorithm = thresholdAlgorithm;
      return this;
    }

    /** Kept for Deeplearning4j's API: ndrt shares exact gradients (class comment). */
    public Builder residualPostProcessor(ResidualPostProcessor residualPostProcessor) {
      this.residualPostProcessor = residualPostProcessor;
      return this;
    }

    /** Kept for Deeplearning4j's API: ndrt shares exact gradients (class comment). */
    public Builder updatesThreshold(double threshold) {
      this.thresholdAlgorithm = new AdaptiveThresholdAlgorithm(threshold);
      return this;
    }

    /** ndrt always balances the RDD into one partition per worker (the barrier stage needs it). */
    public Builder repartitionData(Repartition repartition) {
      return this;
    }

    public Builder repartitionStrategy(RepartitionStrategy strategy) {
      return this;
    }

    public Builder storageLevel(StorageLevel storageLevel) {
      this.storageLevel = storageLevel;
      return this;
    }

    /** Either value trains directly on the cached RDD. */
    public Builder rddTrainingApproach(RDDTrainingApproach approach) {
      return this;
    }

    /** Kept for Deeplearning4j's API: ndrt exports nothing. */
    public Builder exportDirectory(String exportDirectory) {
      return this;
    }

    /** Kept for Deeplearning4j's API: ndrt draws no random split. */
    public Builder rngSeed(long rngSeed) {
      return this;
    }

    /** Kept for Deeplearning4j's API: minibatches are cut from cached records. */
    public Builder workerPrefetchNumBatches(int prefetchNumBatches) {
      return this;
    }

    /** true is refused at build: ndrt does not collect SparkTrainingStats. */
    public Builder collectTrainingStats(boolean collectTrainingStats) {
      this.collectTrainingStats = collectTrainingStats;
      return this;
    }

    public SharedTrainingMaster build() {
      return new SharedTrainingMaster(this);
    }
  }
}
