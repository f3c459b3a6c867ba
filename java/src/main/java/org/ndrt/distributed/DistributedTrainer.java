package org.ndrt.distributed;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.ndrt.DType;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.data.DataSetIterator;
import org.ndrt.data.ShardedDataSetIterator;
import org.ndrt.eval.Evaluation;
import org.ndrt.nn.Model;
import org.ndrt.nn.RandomStreams;
import org.ndrt.nn.TrainerSupport;
import org.ndrt.nn.conf.Json;
import org.ndrt.nn.listeners.TrainingListener;

/**
 * Data-parallel training over processes (one {@link Collectives} group: {@link Communicator} over
 * MPI, or {@link TcpCommunicator} over plain TCP), in the shape of Deeplearning4j's training
 * masters: one API, two modes.
 *
 * <pre>{@code
 * try (Communicator world = Communicator.world()) {
 *   ShardedDataSetIterator shard = new ShardedDataSetIterator(examples, 32, world.rank(), world.size(), 123);
 *   DistributedTrainer t = new DistributedTrainer.Builder(net, world)
 *       .gradientSharing()                         // or .parameterAveraging(5).saveUpdater(true)
 *       .checkpointDir(Path.of("ckpt")).checkpointEvery(100)
 *       .listeners(new ProgressBarListener(3))     // called on rank 0 only
 *       .build();
 *   t.fit(shard, 3);                               // until the network has trained 3 epochs
 *   Evaluation e = t.evaluate(testShard);          // confusion matrix summed over the ranks
 * }
 * }</pre>
 *
 * <p><b>Networks.</b> Any {@link Model}: a {@link org.ndrt.nn.MultiLayerNetwork} or a {@link
 * org.ndrt.nn.ComputationGraph} with one input and one output (ranks fit DataSets); a graph's
 * backward hands its layers' gradients over in descending layer index as a MultiLayerNetwork's does,
 * so the buckets below are the same for both. One implementation on Model; the class is not
 * generic: {@link #getNetwork()} is a generic method that casts to the type the caller asks for.
 *
 * <p>Every rank runs the same program with its own replica of the network (built from the same
 * configuration) and its own shard of the data; every rank must call the same methods with the same
 * arguments, as for any collective.
 *
 * <p><b>Start.</b> Each {@link #fit} starts by broadcasting rank 0's parameters, updater state and
 * training state (epoch, iteration and updater-step counts, random stream offsets) to every rank,
 * so the replicas start equal whatever each rank did before.
 *
 * <p><b>Gradient sharing</b> (the default; PyTorch DDP's semantics). Every step each rank computes
 * the gradients of its own minibatch; they are averaged over the ranks (MEAN allreduce); every rank
 * applies the same update to the same parameters, so the replicas stay equal. With equal per-rank
 * minibatches of {@code b} examples this is the step a single process makes on the global minibatch
 * of {@code size * b} examples (the loss is a mean), up to the rounding of f32 sums taken in another
 * order. The gradients are averaged while backward goes on: walking the layers from the last to the
 * first, each layer's gradients join a bucket, and a bucket of at least {@link Builder#bucketBytes}
 * bytes (default 1 MiB) starts an asynchronous allreduce at once; the last bucket (the first layers)
 * starts when backward ends. The update waits for all of them. A bucket is one collective over the
 * contiguous pieces of the flat gradient vector its layers own. Non-trained parameter state (batch
 * norm's running statistics) is averaged with the last bucket too; batch norm normalises with each
 * rank's own minibatch statistics (no synchronised batch norm).
 *
 * <p><b>Parameter averaging</b> ({@link Builder#parameterAveraging}). Each rank fits {@code k}
 * minibatches on its own, then the flat parameter vectors are averaged (MEAN allreduce) and, with
 * {@link Builder#saveUpdater} (default true), the updater state vectors too (momentum, Adam's
 * moments); without, each rank keeps its own updater state. Rounds start again at every epoch;
 * the epoch's last round may be shorter (it ends with the epoch's data), so the model after every
 * epoch is averaged.
 *
 * <p><b>Data.</b> Every rank must make the same number of minibatches per epoch, or the ranks would
 * make different collectives (MPI: the runtime's {@code dist.verify} check fails them, without it
 * they hang until {@code dist.timeout_s}; TCP: every collective is checked). {@link ShardedDataSetIterator} guarantees it (the last partial
 * global batch is dropped); it is checked to be this communicator's rank and size and to drop the
 * partial batch. Other iterators are taken as they are: they must give each rank the same number of
 * equal-sized minibatches.
 *
 * <p><b>Scores and listeners.</b> The score of an iteration is the mean over the ranks of their
 * minibatch scores. Gradient sharing carries it along with the last gradient bucket (one more f32
 * value in that collective, no collective of its own); parameter averaging sends the round's scores
 * in one small f64 allreduce per averaging. The trainer's listeners are called on rank 0 only
 * (the other ranks stay quiet), with the global minibatch size as the example count: gradient
 * sharing after every step; parameter averaging after each averaging, once for each minibatch of
 * the round. The network's own listeners are not called during {@code fit()} (they would see one
 * rank's score); they are put back when it returns.
 *
 * <p><b>Random streams.</b> Rank {@code r} draws its dropout masks from the layers' random stream
 * {@code r} (see {@link RandomStreams}) during {@code fit()}, so ranks draw different masks; the
 * network's stream is put back when it returns.
 *
 * <p><b>Checkpoints</b> ({@link Builder#checkpointDir}, {@link Builder#checkpointEvery}). Rank 0
 * writes {@code checkpoint.zip} in the directory: the model zip of {@link Model#save}
 * (parameters, updater state, counters, random streams; {@link Model#load} reads it)
 * plus {@code checkpoint.json} with the data position (epoch and minibatch within it), the mode,
 * the number of ranks and the per-rank batch size. It is written to a temporary file, synced and
 * renamed, so the directory always holds a whole checkpoint. Checkpoints are written at
 * synchronisation points (every step with gradient sharing, every averaging with parameter
 * averaging): at the first one at or after each multiple of {@code checkpointEvery} iterations,
 * and when {@link #fit(DataSetIterator, int, long)} stops. A failed write fails {@code fit()} on
 * every rank (rank 0 tells the others). A trainer built with {@link Builder#resumeFrom} (or whose
 * checkpoint directory already holds a checkpoint) loads it on rank 0 at its first {@code fit()},
 * broadcasts it, and goes on from its data position (which needs a {@link ShardedDataSetIterator}
 * when the position is inside an epoch), so the run ends with the parameters an uninterrupted run
 * would have: bit for bit with gradient sharing, and with parameter averaging when {@code
 * saveUpdater} is on (without it the other ranks' own updater states are not in the checkpoint:
 * they restart from rank 0's).
 *
 * <p><b>Not supported.</b> Mixed precision (a network of dataType F16/BF16) is refused: the ranks
 * would have to agree on the steps loss scaling skips. Not thread-safe: one thread per rank calls
 * the trainer.
 */
public final class DistributedTrainer {
  /** The checkpoint's file name in the checkpoint directory. */
  public static final String CHECKPOINT_FILE = "checkpoint.zip";

  /** Default {@link Builder#bucketBytes}: 1 MiB. */
  public static final long DEFAULT_BUCKET_BYTES = 1L << 20;

  private static final String CHECKPOINT_ENTRY = "checkpoint.json";

  private final Model net;
  private final Collectives comm;
  private final int averagingFrequency; // 0: gradient sharing
  private final boolean saveUpdater;
  private final long bucketBytes;
  private final Path checkpointDir;
  private final long checkpointEvery;
  private Path resumeFrom; // consumed by the first fit()
  private final List<TrainingListener> listeners = new CopyOnWriteArrayList<>();
  private int positionInEpoch; // minibatches of the network's current epoch already trained (a stopped fit)
  private double score = Double.NaN;
  // per fit()
  private boolean resumedFromFile;
  private int batchSize; // the iterator's, written into checkpoints
  private long lastCheckpoint; // the iteration count at the last checkpoint

  private DistributedTrainer(Builder b) {
    net = b.net;
    comm = b.comm;
    averagingFrequency = b.averagingFrequency;
    saveUpdater = b.saveUpdater;
    bucketBytes = b.bucketBytes;
    checkpointDir = b.checkpointDir;
    checkpointEvery = b.checkpointEvery;
    resumeFrom = b.resumeFrom != null ? b.resumeFrom
        : checkpointDir != null && Files.isRegularFile(checkpointDir.resolve(CHECKPOINT_FILE)) ? checkpointDir : null;
    listeners.addAll(b.listeners);
  }

  /**
   * This rank's replica (the network given to the builder), as the type the caller expects ({@code
   * MultiLayerNetwork net = t.getNetwork()} or {@code ComputationGraph g = t.getNetwork()}). The cast
   * is unchecked: asking for another kind than the builder was given throws ClassCastException at
   * the caller's assignment.
   *
   * @param <T> the network's type (MultiLayerNetwork, ComputationGraph or Model)
   * @return the network
   */
  @SuppressWarnings("unchecked")
  public <T extends Model> T getNetwork() {
    return (T) net;
  }

  /** The group the trainer was built with. */
  public Collectives communicator() {
    return comm;
  }

  /** True for gradient sharing, false for parameter averaging. */
  public boolean isGradientSharing() {
    return averagingFrequency == 0;
  }

  /** The mean over the ranks of the last minibatch scores (NaN before the first step). */
  public double score() {
    return score;
  }

  /** Replaces the trainer's listeners (called on rank 0 only). */
  public void setListeners(TrainingListener... ls) {
    checkListeners(ls);
    listeners.clear();
    listeners.addAll(Arrays.asList(ls));
  }

  public void addListeners(TrainingListener... ls) {
    checkListeners(ls);
    listeners.addAll(Arrays.asList(ls));
  }

  public List<TrainingListener> getListeners() {
    return listeners;
  }

  private static void checkListeners(TrainingListener[] ls) {
    if (ls == null || Arrays.asList(ls).contains(null)) {
      throw new IllegalArgumentException("DistributedTrainer: listeners must not be null");
    }
  }

  // ------------------------------------------------------------------------------------ fit

  /**
   * Trains until the network has trained {@code totalEpochs} epochs in all (its epoch count): a new
   * network trains {@code totalEpochs} epochs, one resumed from a checkpoint (or after a stopped
   * {@code fit}) finishes what is left. Collective: every rank calls it with the same arguments.
   *
   * @param shard this rank's data (each DataSet taken is closed)
   * @throws IllegalArgumentException for a null or unsuitable iterator, or {@code totalEpochs < 0}
   * @throws IllegalStateException when a checkpoint cannot be read or written
   */
  public void fit(DataSetIterator shard, int totalEpochs) {
    fit(shard, totalEpochs, -1);
  }

  /**
   * {@link #fit(DataSetIterator, int)} that stops early, at the first synchronisation point (every
   * step with gradient sharing, every averaging with parameter averaging) where the network's
   * iteration count is at least {@code stopAtIteration} ({@code < 0}: never), writing a checkpoint
   * there when a checkpoint directory is set. A later {@code fit} of this trainer, or a new trainer
   * resuming from the checkpoint, goes on from there.
   */
  public void fit(DataSetIterator shard, int totalEpochs, long stopAtIteration) {
    if (shard == null) {
      throw new IllegalArgumentException("DistributedTrainer.fit: the iterator must not be null");
    }
    if (totalEpochs < 0) {
      throw new IllegalArgumentException("DistributedTrainer.fit: totalEpochs must be >= 0, got " + totalEpochs);
    }
    ShardedDataSetIterator sharded = shard instanceof ShardedDataSetIterator ? (ShardedDataSetIterator) shard : null;
    if (sharded != null) {
      if (sharded.rank() != comm.rank() || sharded.size() != comm.size()) {
        throw new IllegalArgumentException("DistributedTrainer.fit: the iterator is the shard of rank " + sharded.rank() + " of "
            + sharded.size() + ", but this process is rank " + comm.rank() + " of " + comm.size());
      }
      if (!sharded.dropsLast()) {
        throw new IllegalArgumentException("DistributedTrainer.fit: the ShardedDataSetIterator keeps the last partial global "
            + "batch (dropLast(false)): ranks would make different numbers of steps; use dropLast(true) for training");
      }
    }
    batchSize = shard.batchSize();
    List<TrainingListener> netListeners = new ArrayList<>(net.getListeners());
    int stream = RandomStreams.stream(net);
    net.setListeners();
    try {
      synchronizeStart(sharded);
      RandomStreams.setStream(net, comm.rank());
      if (positionInEpoch > 0 && sharded == null && resumedFromFile) {
        throw new IllegalArgumentException("DistributedTrainer.fit: resuming inside an epoch (minibatch " + positionInEpoch
            + ") needs a ShardedDataSetIterator, which can seek there");
      }
      try (Run run = averagingFrequency == 0 ? new GradientSharingRun() : new AveragingRun()) {
        train(shard, sharded, totalEpochs, stopAtIteration, run);
      }
    } finally {
      resumedFromFile = false;
      RandomStreams.setStream(net, stream);
      net.setListeners(netListeners.toArray(new TrainingListener[0]));
    }
  }

  private void train(DataSetIterator it, ShardedDataSetIterator sharded, int totalEpochs, long stopAt, Run run) {
    lastCheckpoint = net.getIterationCount();
    while (net.getEpochCount() < totalEpochs) {
      int epoch = net.getEpochCount();
      if (stopAt >= 0 && net.getIterationCount() >= stopAt) {
        break;
      }
      if (sharded != null) {
        sharded.seek(epoch, positionInEpoch);
      } else if (!it.hasNext()) {
        it.reset();
      }
      if (rank0()) {
        long iters = sharded != null ? sharded.stepsPerEpoch() : iterationsInEpoch(it);
        for (TrainingListener l : listeners) {
          l.onEpochStart(net, epoch, iters, it.batchSize() * comm.size());
        }
      }
      boolean due = false; // a checkpoint is due at the next point where one may be written
      while (it.hasNext()) {
        try (DataSet ds = it.next()) {
          if (ds == null) {
            throw new IllegalStateException("DistributedTrainer.fit: the iterator returned a null DataSet");
          }
          run.step(ds);
        }
        ++positionInEpoch;
        if (!run.afterStep(!it.hasNext())) {
          continue; // not a synchronisation point: the replicas differ
        }
        long iteration = net.getIterationCount();
        due |= checkpointDir != null && checkpointEvery > 0 && iteration / checkpointEvery > lastCheckpoint / checkpointEvery;
        if (!it.hasNext()) {
          break; // the epoch's end: its checkpoint comes after the epoch count moved
        }
        if (due) {
          checkpoint();
          due = false;
        }
        if (stopAt >= 0 && iteration >= stopAt) {
          finish();
          return;
        }
      }
      if (rank0()) {
        for (TrainingListener l : listeners) {
          l.onEpochEnd(net, epoch);
        }
      }
      net.incrementEpochCount();
      positionInEpoch = 0;
      if (due) {
        checkpoint();
      }
    }
    finish();
  }

  /** fit() ends (done or stopped): a last checkpoint when there is a directory and it is not written yet. */
  private void finish() {
    if (checkpointDir != null && lastCheckpoint != net.getIterationCount()) {
      checkpoint();
    }
  }

  private static long iterationsInEpoch(DataSetIterator it) {
    int batch = it.batchSize();
    long examples = it.numExamples();
    return batch > 0 && examples > 0 ? (examples + batch - 1) / batch : -1;
  }

  private boolean rank0() {
    return comm.rank() == 0;
  }

  private void report(long iteration, double s, int examples) {
    score = s;
    if (rank0()) {
      for (TrainingListener l : listeners) {
        l.iterationDone(net, iteration, net.getEpochCount(), s, examples * comm.size());
      }
    }
  }

  // ----------------------------------------------------------------------------- start, resume

  /**
   * Rank 0's state to every rank: a header (status, position in the epoch), the training state,
   * then the parameters and the updater state. Status: 0 as it is, 1 resumed from a checkpoint, -1
   * rank 0 failed to read the checkpoint (every rank throws).
   */
  private void synchronizeStart(ShardedDataSetIterator sharded) {
    long[] head = new long[2];
    IOException failed = null;
    RuntimeException failedRt = null;
    if (rank0()) {
      head[1] = positionInEpoch;
      if (resumeFrom != null) {
        try {
          head[1] = loadCheckpoint(resumeFrom.resolve(CHECKPOINT_FILE), sharded);
          head[0] = 1;
        } catch (IOException e) {
          failed = e;
          head[0] = -1;
        } catch (RuntimeException e) {
          failedRt = e;
          head[0] = -1;
        }
      }
    }
    resumeFrom = null;
    long[] state = TrainerSupport.trainingState(net);
    long[] v = new long[head.length + state.length];
    System.arraycopy(head, 0, v, 0, head.length);
    System.arraycopy(state, 0, v, head.length, state.length);
    try (Tensor t = Tensor.from(v, v.length)) {
      comm.broadcast(t, 0);
      v = t.toLongArray();
    }
    if (v[0] < 0) {
      String what = "DistributedTrainer.fit: rank 0 could not resume from its checkpoint";
      if (failed != null) {
        throw new IllegalStateException(what + ": " + failed.getMessage(), failed);
      }
      if (failedRt != null) {
        throw new IllegalStateException(what + ": " + failedRt.getMessage(), failedRt);
      }
      throw new IllegalStateException(what + " (see rank 0's error)");
    }
    resumedFromFile = v[0] == 1;
    if (!rank0()) {
      TrainerSupport.setTrainingState(net, Arrays.copyOfRange(v, head.length, v.length));
    }
    positionInEpoch = (int) v[1];
    comm.broadcast(net.params(), 0);
    if (net.updaterState().numel() > 0) {
      comm.broadcast(net.updaterState(), 0);
    }
  }

  /** Rank 0: the checkpoint into the network; returns the minibatch position in the epoch. */
  private int loadCheckpoint(Path file, ShardedDataSetIterator sharded) throws IOException {
    if (!Files.isRegularFile(file)) {
      throw new IOException(file + ": no checkpoint there");
    }
    long[] before = TrainerSupport.trainingState(net);
    float[] params = net.params().toFloatArray();
    float[] updater = net.updaterState().toFloatArray();
    Map<String, byte[]> extra = TrainerSupport.loadInto(net, file.toFile());
    try {
      byte[] json = extra.get(CHECKPOINT_ENTRY);
      if (json == null) {
        throw new IOException(file + ": a saved model, not a checkpoint (no " + CHECKPOINT_ENTRY + ")");
      }
      Map<String, Object> c;
      try {
        c = Json.obj(Json.parse(new String(json, StandardCharsets.UTF_8)), CHECKPOINT_ENTRY);
      } catch (IllegalArgumentException e) {
        throw new IOException(file + ": " + CHECKPOINT_ENTRY + ": " + e.getMessage(), e);
      }
      long ranks = Json.integer(c, "ranks");
      if (ranks != comm.size()) {
        throw new IOException(file + ": written by a job of " + ranks + " ranks; this one has " + comm.size()
            + " (the data position would not mean the same)");
      }
      long batch = Json.integer(c, "batchSize", -1);
      if (sharded != null && batch >= 0 && batch != sharded.batchSize()) {
        throw new IOException(file + ": written with " + batch + " examples per rank and minibatch; the iterator has "
            + sharded.batchSize());
      }
      String mode = Json.str(c, "mode");
      if (!mode.equals(modeName())) {
        throw new IOException(file + ": written in " + mode + " mode; this trainer uses " + modeName());
      }
      long epoch = Json.integer(c, "epoch");
      long position = Json.integer(c, "batch");
      if (epoch != net.getEpochCount() || position < 0 || position > Integer.MAX_VALUE) {
        throw new IOException(file + ": position epoch " + epoch + ", minibatch " + position + " does not fit the model's"
            + " epoch count " + net.getEpochCount());
      }
      System.err.printf("DistributedTrainer: resuming from %s (epoch %d, minibatch %d, iteration %d)%n", file, epoch,
          position, net.getIterationCount());
      return (int) position;
    } catch (IOException | RuntimeException e) {
      TrainerSupport.setTrainingState(net, before);
      net.params().copyFrom(params);
      net.updaterState().copyFrom(updater);
      throw e;
    }
  }

  private String modeName() {
    return averagingFrequency == 0 ? "gradientSharing" : "parameterAveraging";
  }

  /**
   * Rank 0 writes the checkpoint at the current position; then it tells every rank whether that
   * worked (one small broadcast), so a failed write fails every rank's fit() alike.
   */
  private void checkpoint() {
    String error = null;
    IOException cause = null;
    if (rank0()) {
      Map<String, Object> c = new LinkedHashMap<>();
      c.put("format", 1L);
      c.put("mode", modeName());
      c.put("averagingFrequency", (long) averagingFrequency);
      c.put("ranks", (long) comm.size());
      c.put("batchSize", (long) batchSize);
      c.put("epoch", (long) net.getEpochCount());
      c.put("batch", (long) positionInEpoch);
      c.put("iteration", net.getIterationCount());
      try {
        Files.createDirectories(checkpointDir);
        Map<String, byte[]> extra = new LinkedHashMap<>();
        extra.put(CHECKPOINT_ENTRY, Json.write(c).getBytes(StandardCharsets.UTF_8));
        File f = checkpointDir.resolve(CHECKPOINT_FILE).toFile();
        TrainerSupport.save(net, f, extra);
      } catch (IOException e) {
        cause = e;
        error = e.toString();
      }
    }
    try (Tensor ok = Tensor.from(new int[] {error == null ? 1 : 0}, 1)) {
      comm.broadcast(ok, 0);
      if (ok.toIntArray()[0] == 0) {
        throw new IllegalStateException("DistributedTrainer: rank 0 could not write the checkpoint in " + checkpointDir
            + (error != null ? ": " + error : " (see rank 0's error)"), cause);
      }
    }
    lastCheckpoint = net.getIterationCount();
  }

  // ----------------------------------------------------------------------------- evaluation

  /**
   * Evaluates the network on this rank's {@code shard} (reset first) and sums the confusion matrices
   * over the ranks (one SUM allreduce): every rank gets the evaluation of all the ranks' examples.
   * Give each rank its own part of the data (e.g. a {@link ShardedDataSetIterator} with {@code
   * dropLast(false)}, which visits every example exactly once over the ranks). Collective.
   */
  public Evaluation evaluate(DataSetIterator shard) {
    if (shard == null) {
      throw new IllegalArgumentException("DistributedTrainer.evaluate: the iterator must not be null");
    }
    Evaluation local = net.evaluate(shard);
    long[][] m = local.getConfusionMatrix();
    int n = m.length;
    long[] flat = new long[n * n];
    for (int a = 0; a < n; ++a) {
      System.arraycopy(m[a], 0, flat, a * n, n);
    }
    try (Tensor t = Tensor.from(flat, flat.length)) {
      comm.allreduce(t, ReduceOp.SUM);
      flat = t.toLongArray();
    }
    for (int a = 0; a < n; ++a) {
      m[a] = Arrays.copyOfRange(flat, a * n, (a + 1) * n);
    }
    return Evaluation.fromConfusionMatrix(m);
  }

  // ----------------------------------------------------------------------------- the two modes

  /** One fit()'s mode: the step, and what happens after it. */
  private interface Run extends AutoCloseable {
    void step(DataSet ds);

    /** After a step ({@code epochEnds}: it was the epoch's last); true at a synchronisation point. */
    boolean afterStep(boolean epochEnds);

    @Override
    void close();
  }

  /**
   * Gradient sharing: buckets of layers' gradient pieces, allreduced asynchronously from the
   * backward hook; the mean score rides in the last bucket.
   */
  private final class GradientSharingRun implements Run, TrainerSupport.BackwardHook {
    private final List<Tensor> owned = new ArrayList<>();
    private final Tensor[][] buckets; // per bucket, the tensors of its collective
    private final int[] closesAt; // per layer: the bucket that starts after its backward, or -1
    private final Collectives.Pending[] pending;
    private final Tensor scoreT;
    private int examples;

    GradientSharingRun() {
      long[][] ranges = TrainerSupport.gradientRanges(net);
      Tensor grads = TrainerSupport.gradients(net);
      int layers = ranges.length;
      closesAt = new int[layers];
      Arrays.fill(closesAt, -1);
      List<Tensor[]> bs = new ArrayList<>();
      try {
        scoreT = own(Tensor.zeros(DType.F32, 1));
        List<long[]> pieces = new ArrayList<>();
        long bytes = 0;
        for (int i = layers - 1; i >= 0; --i) {
          for (int k = 0; k < ranges[i].length; k += 2) {
            pieces.add(new long[] {ranges[i][k], ranges[i][k + 1]});
            bytes += 4 * ranges[i][k + 1];
          }
          if (i == 0 || (bytes >= bucketBytes && !pieces.isEmpty())) {
            List<Tensor> ts = new ArrayList<>();
            for (long[] p : merge(pieces)) {
              ts.add(own(grads.slice(0, p[0], p[0] + p[1])));
            }
            if (i == 0) {
              long trained = grads.numel();
              long all = net.params().numel();
              if (all > trained) { // batch-norm running statistics: averaged, not trained
                ts.add(own(net.params().slice(0, trained, all)));
              }
              ts.add(scoreT);
            }
            closesAt[i] = bs.size();
            bs.add(ts.toArray(new Tensor[0]));
            pieces.clear();
            bytes = 0;
          }
        }
      } catch (RuntimeException e) {
        close();
        throw e;
      }
      buckets = bs.toArray(new Tensor[0][]);
      pending = new Collectives.Pending[buckets.length];
      TrainerSupport.setBackwardHook(net, this);
    }

    private Tensor own(Tensor t) {
      owned.add(t);
      return t;
    }

    @Override
    public void layerDone(int layer) {
      int b = closesAt[layer];
      if (b < 0) {
        return;
      }
      if (b == buckets.length - 1) {
        scoreT.copyFrom(new float[] {(float) net.score()});
      }
      pending[b] = comm.allreduceAsync(ReduceOp.MEAN, buckets[b]);
    }

    @Override
    public void beforeUpdate() {
      for (int b = 0; b < pending.length; ++b) {
        Collectives.Pending p = pending[b];
        pending[b] = null;
        if (p == null) {
          throw new IllegalStateException("DistributedTrainer: gradient bucket " + b + " was not started in backward");
        }
        p.close(); // waits; throws the collective's error
      }
    }

    @Override
    public void step(DataSet ds) {
      examples = ds.numExamples();
      try {
        net.fit(ds);
      } finally {
        drain();
      }
    }

    /** After a failed step: waits for the collectives still in flight (their errors are secondary). */
    private void drain() {
      if (pending == null) {
        return; // the constructor failed
      }
      for (int b = 0; b < pending.length; ++b) {
        if (pending[b] != null) {
          try {
            pending[b].close();
          } catch (RuntimeException e) {
            // the step's own exception is on its way
          }
          pending[b] = null;
        }
      }
    }

    @Override
    public boolean afterStep(boolean epochEnds) {
      report(net.getIterationCount(), scoreT.item(), examples);
      return true;
    }

    @Override
    public void close() {
      TrainerSupport.setBackwardHook(net, null);
      drain();
      for (Tensor t : owned) {
        t.close();
      }
      owned.clear();
    }
  }

  /** Sorted by offset, touching pieces joined. */
  static List<long[]> merge(List<long[]> pieces) {
    List<long[]> s = new ArrayList<>(pieces);
    s.sort((a, b) -> Long.compare(a[0], b[0]));
    List<long[]> out = new ArrayList<>();
    for (long[] p : s) {
      if (p[1] == 0) {
        continue;
      }
      long[] last = out.isEmpty() ? null : out.get(out.size() - 1);
      if (last != null && last[0] + last[1] == p[0]) {
        last[1] += p[1];
      } else {
        out.add(p.clone());
      }
    }
    return out;
  }

  /** Parameter averaging: local steps, then the means of the parameters (and updater state) and the round's scores. */
  private final class AveragingRun implements Run {
    private final double[] scores = new double[averagingFrequency];
    private final int[] examples = new int[averagingFrequency];
    private int inRound;

    @Override
    public void step(DataSet ds) {
      net.fit(ds);
      scores[inRound] = net.score();
      examples[inRound] = ds.numExamples();
      ++inRound;
    }

    @Override
    public boolean afterStep(boolean epochEnds) {
      if (inRound < averagingFrequency && !epochEnds) {
        return false;
      }
      comm.allreduce(net.params(), ReduceOp.MEAN);
      if (saveUpdater && net.updaterState().numel() > 0) {
        comm.allreduce(net.updaterState(), ReduceOp.MEAN);
      }
      double[] mean;
      try (Tensor t = Tensor.from(Arrays.copyOf(scores, inRound), inRound)) {
        comm.allreduce(t, ReduceOp.MEAN);
        mean = t.toDoubleArray();
      }
      long first = net.getIterationCount() - inRound;
      for (int j = 0; j < inRound; ++j) {
        report(first + j + 1, mean[j], examples[j]);
      }
      inRound = 0;
      return true;
    }

    @Override
    public void close() {}
  }

  // ----------------------------------------------------------------------------- builder

  /** Builds a {@link DistributedTrainer}. */
  public static final class Builder {
    private final Model net;
    private final Collectives comm;
    private int averagingFrequency; // 0: gradient sharing
    private boolean saveUpdater = true;
    private long bucketBytes = DEFAULT_BUCKET_BYTES;
    private Path checkpointDir;
    private long checkpointEvery;
    private Path resumeFrom;
    private final List<TrainingListener> listeners = new ArrayList<>();

    /**
     * @param net this rank's replica (a MultiLayerNetwork, or a ComputationGraph with one input and one
     *     output), initialised; every rank's is built from the same configuration
     * @param comm the group to train over ({@link Communicator} or {@link TcpCommunicator})
     * @throws IllegalArgumentException if an argument is null, or the network computes in f16/bf16
     * @throws IllegalStateException if the network is not initialised or closed
     */
    public Builder(Model net, Collectives comm) {
      if (net == null || comm == null) {
        throw new IllegalArgumentException("DistributedTrainer.Builder: the network and the communicator must not be null");
      }
      net.numParams(); // fails now, with the network's message, if it is not initialised
      if (TrainerSupport.isMixedPrecision(net)) {
        throw new IllegalArgumentException("DistributedTrainer: mixed precision (dataType " + net.configuration().dataType()
            + ") is not supported: the ranks would have to agree on the steps that loss scaling skips; train in F32");
      }
      this.net = net;
      this.comm = comm;
    }

    /** Gradient sharing (the default): see the class comment. */
    public Builder gradientSharing() {
      this.averagingFrequency = 0;
      return this;
    }

    /** Parameter averaging every {@code averagingFrequency} minibatches (>= 1): see the class comment. */
    public Builder parameterAveraging(int averagingFrequency) {
      if (averagingFrequency < 1) {
        throw new IllegalArgumentException("DistributedTrainer.Builder.parameterAveraging: the frequency must be >= 1, got "
            + averagingFrequency);
      }
      this.averagingFrequency = averagingFrequency;
      return this;
    }

    /** Parameter averaging: average the updater state with the parameters (default true). */
    public Builder saveUpdater(boolean b) {
      this.saveUpdater = b;
      return this;
    }

    /** Gradient sharing: the size at which a bucket of gradients starts its allreduce (default 1 MiB). */
    public Builder bucketBytes(long bytes) {
      if (bytes < 1) {
        throw new IllegalArgumentException("DistributedTrainer.Builder.bucketBytes: need >= 1, got " + bytes);
      }
      this.bucketBytes = bytes;
      return this;
    }

    /** Where rank 0 writes {@value #CHECKPOINT_FILE}; a checkpoint already there is resumed from. */
    public Builder checkpointDir(Path dir) {
      if (dir == null) {
        throw new IllegalArgumentException("DistributedTrainer.Builder.checkpointDir: the directory must not be null");
      }
      this.checkpointDir = dir;
      return this;
    }

    /** A checkpoint every {@code iterations} (>= 1) iterations (needs {@link #checkpointDir}). */
    public Builder checkpointEvery(long iterations) {
      if (iterations < 1) {
        throw new IllegalArgumentException("DistributedTrainer.Builder.checkpointEvery: need >= 1 iterations, got " + iterations);
      }
      this.checkpointEvery = iterations;
      return this;
    }

    /** Resume from the checkpoint in {@code dir} at the first fit() (it must be there). */
    public Builder resumeFrom(Path dir) {
      if (dir == null) {
        throw new IllegalArgumentException("DistributedTrainer.Builder.resumeFrom: the directory must not be null");
      }
      this.resumeFrom = dir;
      return this;
    }

    /** The trainer's listeners, called on rank 0 only (replacing any set before). */
    public Builder listeners(TrainingListener... ls) {
      checkListeners(ls);
      listeners.clear();
      listeners.addAll(Arrays.asList(ls));
      return this;
    }

    /**
     * @throws IllegalArgumentException if {@code checkpointEvery} is set without a checkpoint directory
     */
    public DistributedTrainer build() {
      if (checkpointEvery > 0 && checkpointDir == null) {
        throw new IllegalArgumentException("DistributedTrainer.Builder: checkpointEvery needs a checkpointDir");
      }
      return new DistributedTrainer(this);
    }
  }
}
