package org.ndrt.spark;

import java.io.IOException;
import java.io.Serializable;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.rdd.RDD;
import org.apache.spark.storage.StorageLevel;
import org.ndrt.data.DataSet;
import org.ndrt.data.DataSetIterator;
import org.ndrt.distributed.DistributedTrainer;
import org.ndrt.distributed.TcpCommunicator;
import org.ndrt.nn.Model;
import org.ndrt.nn.RandomStreams;
import org.ndrt.nn.TrainerSupport;
import org.ndrt.nn.listeners.TrainingListener;
import scala.collection.JavaConverters;
import scala.reflect.ClassTag;
import scala.runtime.AbstractFunction1;

/**
 * Gradient sharing on Spark (Deeplearning4j's SharedTrainingMaster): one Spark barrier stage per epoch
 * whose tasks, one per worker, all run at once; they find each other through a small rendezvous server on
 * the driver (each task's "host:port"; {@link Rendezvous}), connect over TCP ({@link TcpCommunicator}) and train with
 * org.ndrt.distributed's {@link DistributedTrainer} in gradient-sharing mode: every step each worker
 * computes the gradients of its minibatch of {@code batchSizePerWorker} examples, they are averaged
 * (ring allreduce, the same bits on every worker) and every replica applies the same update — the step
 * one process makes on the union of the workers' minibatches. Rank 0 sends the trained state back.
 *
 * <p>Why this transport: Spark has no collective operations, and shipping gradients through the driver
 * every step would make it the bottleneck; barrier execution gives what a collective needs (all tasks
 * running together, retry of the whole stage on failure), and the tasks then
 * exchange gradients directly, as MPI ranks do. Deeplearning4j's own implementation sends quantised
 * threshold-encoded updates asynchronously (Aeron); ndrt shares exact averaged gradients synchronously,
 * so the threshold settings have no counterpart here.
 *
 * <p>Data: the RDD is staged (StagedData: a shuffled, cached copy, one partition per worker, balanced,
 * reused while the same RDD is fitted again, until {@link #release}); every worker fits the same
 * number of minibatches, the most whole minibatches every partition has (examples beyond are left out
 * of that epoch, as ShardedDataSetIterator drops the last partial global batch). A worker lost during the
 * stage fails the stage: the surviving tasks see the broken ring within {@code timeout} and Spark
 * retries the stage as a whole or fails the job. Needs as many free task slots as workers.
 */
public final class GradientSharingTrainer implements SparkTrainer {
  private final int numWorkers;
  private final int batchSizePerWorker;
  private final Duration timeout;
  private final StorageLevel storageLevel;
  private double lastScore = Double.NaN;
  private final StagedData.Cache staged = new StagedData.Cache();

  /**
   * @param numWorkers workers (barrier tasks); 0: Spark's default parallelism
   * @param timeout how long the workers wait for each other (connecting, and any collective)
   */
  public GradientSharingTrainer(int numWorkers, int batchSizePerWorker, Duration timeout, StorageLevel storageLevel) {
    if (numWorkers < 0 || batchSizePerWorker <= 0) {
      throw new IllegalArgumentException("GradientSharingTrainer: need numWorkers >= 0 (0: Spark's default) and "
          + "batchSizePerWorker > 0; got " + numWorkers + ", " + batchSizePerWorker);
    }
    if (timeout == null || timeout.isNegative() || timeout.isZero() || storageLevel == null) {
      throw new IllegalArgumentException("GradientSharingTrainer: need a positive timeout and a storage level");
    }
    this.numWorkers = numWorkers;
    this.batchSizePerWorker = batchSizePerWorker;
    this.timeout = timeout;
    this.storageLevel = storageLevel;
  }

  @Override
  public double lastScore() {
    return lastScore;
  }

  /** What rank 0 sends back: the trained state and the score and example count of every step. */
  static final class Outcome implements Serializable {
    private static final long serialVersionUID = 1L;
    ModelState state;
    double[] scores;
    int[] examples;
  }

  @Override
  public <T> void fit(JavaSparkContext sc, Model model, JavaRDD<T> data, RecordConverter<T> converter) {
    if (sc == null || model == null || data == null || converter == null) {
      throw new IllegalArgumentException("fit: the Spark context, network, data and converter must not be null");
    }
    if (TrainerSupport.isMixedPrecision(model)) {
      throw new UnsupportedOperationException("Spark training of a mixed-precision (F16/BF16) network: train it in FLOAT");
    }
    int workers = numWorkers > 0 ? numWorkers : sc.defaultParallelism();
    // Always one partition per worker, balanced: every rank must make the same number of steps.
    StagedData<T> s = staged.get(data, converter, workers, (d, c, w) -> d.getNumPartitions() != w
        || !Partitions.balanced(Partitions.exampleCounts(d, c), w, batchSizePerWorker), storageLevel);
    long steps = Long.MAX_VALUE;
    for (long c : s.counts) {
      steps = Math.min(steps, c / batchSizePerWorker);
    }
    if (steps == 0) {
      throw new IllegalArgumentException("fit: a worker has fewer than batchSizePerWorker = " + batchSizePerWorker
          + " examples (examples per worker: " + Arrays.toString(s.counts) + ")");
    }
    Outcome out = runStage(sc, model, s.rdd, converter, steps);
    int stream = RandomStreams.stream(model);
    int epoch = model.getEpochCount();
    for (TrainingListener l : model.getListeners()) {
      l.onEpochStart(model, epoch, steps, batchSizePerWorker * workers);
    }
    out.state.applyTo(model);  // counters included: one epoch more
    RandomStreams.setStream(model, stream);
    long first = model.getIterationCount() - out.scores.length + 1;
    for (TrainingListener l : model.getListeners()) {
      for (int i = 0; i < out.scores.length; ++i) {
        l.iterationDone(model, first + i, epoch, out.scores[i], out.examples[i]);
      }
      l.onEpochEnd(model, epoch);
    }
    lastScore = out.scores[out.scores.length - 1];
  }

  @Override
  public void release() {
    staged.release();
  }

  private <T> Outcome runStage(JavaSparkContext sc, Model model, JavaRDD<T> d, RecordConverter<T> converter,
      long steps) {
    Broadcast<ModelState> start = sc.broadcast(ModelState.of(model, true));
    String driverHost = sc.getConf().get("spark.driver.host", "127.0.0.1");
    try (Rendezvous meet = new Rendezvous(InetAddress.getByName(driverHost), d.getNumPartitions(), timeout)) {
      Task<T> task = new Task<>(ModelSpec.of(model), start, converter, batchSizePerWorker, steps, timeout.toMillis(),
          meet.address(), d.getNumPartitions());
      ClassTag<Outcome> tag = scala.reflect.ClassTag$.MODULE$.apply(Outcome.class);
      RDD<Outcome> outcomes = d.rdd().barrier().mapPartitions(task, true, tag);
      List<Outcome> all = new JavaRDD<>(outcomes, tag).collect();
      if (all.size() != 1) {
        throw new IllegalStateException("gradient sharing: expected rank 0's result alone, got " + all.size());
      }
      return all.get(0);
    } catch (IOException e) {
      throw new IllegalStateException("gradient sharing: could not open the rendezvous on the driver (" + driverHost
          + "): " + e.getMessage(), e);
    } finally {
      start.destroy();
    }
  }

  /** One barrier task: a rank of the TCP group, training its partition with DistributedTrainer. */
  private static final class Task<T> extends AbstractFunction1<scala.collection.Iterator<T>,
      scala.collection.Iterator<Outcome>> implements Serializable {
    private static final long serialVersionUID = 1L;
    private final ModelSpec spec;
    private final Broadcast<ModelState> start;
    private final RecordConverter<T> converter;
    private final int batch;
    private final long steps;
    private final long timeoutMillis;
    private final String rendezvous;
    private final int workers;

    Task(ModelSpec spec, Broadcast<ModelState> start, RecordConverter<T> converter, int batch, long steps,
        long timeoutMillis, String rendezvous, int workers) {
      this.spec = spec;
      this.start = start;
      this.converter = converter;
      this.batch = batch;
      this.steps = steps;
      this.timeoutMillis = timeoutMillis;
      this.rendezvous = rendezvous;
      this.workers = workers;
    }

    @Override
    public scala.collection.Iterator<Outcome> apply(scala.collection.Iterator<T> records) {
      int rank = TaskContext.get().partitionId();  // not BarrierTaskContext.get(): see Rendezvous
      TcpCommunicator comm;
      try {
        comm = Rendezvous.join(rendezvous, rank, workers, Duration.ofMillis(timeoutMillis));
      } catch (IOException e) {
        throw new IllegalStateException("gradient sharing: rank " + rank + " could not join the TCP group: "
            + e.getMessage(), e);
      }
      Model m = Replicas.borrow(spec);
      try (TcpCommunicator c = comm) {
        start.value().applyTo(m);
        Outcome out = new Outcome();
        List<double[]> steps0 = new ArrayList<>();
        DistributedTrainer trainer = new DistributedTrainer.Builder(m, c).gradientSharing()
            .listeners(new TrainingListener() {
              @Override
              public void iterationDone(Model model, long iteration, int epoch, double score, int examples) {
                steps0.add(new double[] {score, examples});
              }
            }).build();
        Minibatches<T> shard = new Minibatches<>(JavaConverters.asJavaIterator(records), converter, batch, steps);
        trainer.fit(shard, m.getEpochCount() + 1);
        Iterator<Outcome> result = Collections.emptyIterator();
        if (rank == 0) {
          out.state = ModelState.of(m, true);
          out.scores = steps0.stream().mapToDouble(s -> s[0]).toArray();
          out.examples = steps0.stream().mapToInt(s -> (int) s[1]).toArray();
          result = Collections.singletonList(out).iterator();
        }
        Replicas.giveBack(spec, m);
        return JavaConverters.asScalaIterator(result);
      } catch (RuntimeException | Error e) {
        m.close();
        throw e;
      }
    }
  }

  /** A partition's first {@code steps} minibatches as org.ndrt's DataSetIterator (one epoch). */
  private static final class Minibatches<T> implements DataSetIterator {
    private final Minibatcher<T> source;
    private final int batch;
    private final long steps;
    private long given;

    Minibatches(Iterator<T> records, RecordConverter<T> converter, int batch, long steps) {
      this.source = new Minibatcher<>(records, converter, batch);
      this.batch = batch;
      this.steps = steps;
    }

    @Override
    public boolean hasNext() {
      return given < steps && source.hasNext();
    }

    @Override
    public DataSet next() {
      ++given;
      try (org.ndrt.data.MultiDataSet b = source.next()) {
        return b.toDataSet();
      }
    }

    @Override
    public void reset() {
      throw new UnsupportedOperationException("a Spark partition's minibatches are read once per epoch");
    }

    @Override
    public int batchSize() {
      return batch;
    }

    @Override
    public long numExamples() {
      return steps * batch;
    }

    @Override
    public int totalOutcomes() {
      throw new UnsupportedOperationException("totalOutcomes: not known from a Spark partition");
    }

    @Override
    public void close() {
      source.close();
    }
  }
}
