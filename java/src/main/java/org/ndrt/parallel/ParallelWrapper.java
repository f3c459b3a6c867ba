package org.ndrt.parallel;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.ndrt.Device;
import org.ndrt.Ndrt;
import org.ndrt.NdrtException;
import org.ndrt.data.DataSetIterator;
import org.ndrt.nn.Model;
import org.ndrt.nn.listeners.TrainingListener;

/**
 * Data-parallel training with parameter averaging, as Deeplearning4j's ParallelWrapper:
 *
 * <pre>{@code
 * try (ParallelWrapper pw = new ParallelWrapper.Builder(net)
 *     .workers(2).prefetchBuffer(8).averagingFrequency(3).build()) {
 *   pw.fit(trainIterator);   // one epoch; net then holds the averaged model
 * }
 * }</pre>
 *
 * <p><b>Networks.</b> Any {@link Model}: a {@link org.ndrt.nn.MultiLayerNetwork} or a {@link
 * org.ndrt.nn.ComputationGraph} with one input and one output (the workers fit the iterator's
 * DataSets with {@code Model.fit(DataSet)}; MultiDataSet iterators are not taken). One
 * implementation on Model for both kinds; the class is not generic: {@link #getNetwork()} is a
 * generic method that casts to the type the caller asks for.
 *
 * <p><b>Workers.</b> Each worker is a thread ({@code ndrt-worker-<i>}, started by {@link #fit} and
 * gone when it returns) attached to a device: round-robin over the CUDA devices when there are any,
 * else {@code cpu:0} (or over {@link Builder#devices}). It trains its own replica of the network,
 * made on its thread by the first {@code fit()} (so the replica's tensors live on its device), kept
 * until {@link #close()}, and set to the network's parameters at the start of every {@code fit()}.
 * A replica on another device than the network's is loaded from a saved copy, and data and
 * parameters cross devices with {@link org.ndrt.Tensor#to} (which the runtime does between cpu
 * devices only, for now: workers on a CUDA device other than the network's fail until it does).
 *
 * <p><b>Feeding.</b> The thread calling {@code fit()} takes the minibatches from the iterator and
 * hands them out round-robin (minibatch {@code j} to worker {@code j % workers}) through a bounded
 * queue per worker ({@link Builder#prefetchBuffer}). A minibatch on another device than its worker's
 * is copied there. Every DataSet taken is closed, on error paths too.
 *
 * <p><b>Averaging.</b> After every {@code averagingFrequency} minibatches of its own, a worker waits
 * for the others; the last to arrive computes, with runtime ops on the network's device and in
 * worker order, {@code mean = (p_1 + ... + p_m) * (1/m)} (an add per worker into the network's own
 * parameter vector, then one multiplication by a rank-0 f32 scalar) over the workers that trained
 * since the previous averaging, and the same for the updater state when {@link
 * Builder#averageUpdaters}; every worker then copies the mean into its replica. When the data runs
 * out, each worker meets the others a last time and leaves; whoever still has minibatches goes on
 * with fewer partners (so an epoch whose minibatch count is not a multiple of {@code workers *
 * averagingFrequency} uses every minibatch once and cannot deadlock). The last averaging leaves the
 * averaged model in the network. For two workers the result is bit for bit {@code (a + b) * 0.5f}.
 *
 * <p><b>Counts.</b> Each averaging advances the network's iteration count by the minibatches each
 * averaged worker fitted in that round ({@code averagingFrequency} in a full round; the most any of
 * them fitted in the epoch's last, shorter round): after an averaging the network's count is a
 * replica's, as if one replica had trained alone. So an epoch of N minibatches over m workers
 * advances it by ceil(N / m), worker 0's share. With {@link Builder#averageUpdaters} the network's
 * updater step count (what Adam's bias correction uses) goes with the averaged state in the same
 * way, so a later plain {@code fit()} of the network goes on from it; without, the network's updater
 * state and its step count stay as they were. A replica takes the network's counts whenever it
 * takes its parameters. The epoch count advances by one per {@code fit()} that completes.
 *
 * <p><b>Random streams.</b> Worker {@code w}'s replica draws its dropout masks from random stream
 * {@code w} of each layer (Philox key {@code seed + 1 + layer + w * 2^32}, see {@link
 * org.ndrt.nn.RandomStreams}; worker 0's is the network's own stream 0), so the workers draw
 * independent masks, as Deeplearning4j's workers with their own random state, and a run is
 * reproducible for a fixed worker count (same seed, data and settings: the same parameters, bit
 * for bit). At the start of every {@code fit()} each replica's stream offsets are set to the
 * network's; at every averaging, and when {@code fit()} ends (failed or not), each of the
 * network's offsets moves to the largest any replica has reached. As every worker's stream
 * started from the network's offset, the network's offset is then past every number a worker
 * drew, so neither the next {@code fit()} (each worker's stream starting there again) nor a later
 * plain {@code fit()} of the network (stream 0) repeats a mask.
 *
 * <p><b>Listeners.</b> The network's own listeners ({@code net.setListeners(...)}, as Deeplearning4j's
 * ParallelWrapper gives the model's listeners to its workers), then the wrapper's ({@link
 * Builder#listeners}, {@link #setListeners}; one that is in both is called once), are called with
 * the original network, one call at a time: {@code onEpochStart} and {@code onEpochEnd} once per
 * {@code fit()}; {@code iterationDone} after each averaging with the mean score of the averaged
 * workers' last minibatches, the examples they fitted since the previous one and, as the iteration
 * number, the network's iteration count after that averaging ({@link
 * Builder#reportScoreAfterAveraging}, the default); or else after every minibatch of every worker
 * (from the worker's thread, with its replica's score), numbered by counting those calls over the
 * wrapper's life (the network's count only moves at averagings). So a {@code
 * ScoreIterationListener} on the network prints during {@code wrapper.fit()} as during {@code
 * net.fit()}. The replicas have no listeners of their own.
 *
 * <p><b>CPU threads.</b> The runtime's intra-op thread count ({@code cpu.threads}) is process-wide,
 * not per thread (runtime/parallel.cpp: one pool, used by one host thread at a time while the
 * others run their ops inline). When every worker is on the cpu, {@code fit()} sets it to {@code
 * max(1, threads / workers)}, {@code threads} being its value before, and restores it when it
 * returns (the last of several concurrent {@code fit()} calls restores it); so the workers share
 * the cores rather than each asking for all of them.
 *
 * <p><b>Errors.</b> An exception in a worker (or a listener it calls) stops every worker and
 * surfaces from {@code fit()} as an {@link IllegalArgumentException} (for one) or an {@link
 * IllegalStateException} (otherwise) with the original as its cause; an exception from the iterator
 * is rethrown as is. No worker thread outlives {@code fit()}. After a failure the network may hold
 * any averaging done before it.
 *
 * <p>Not thread-safe: one thread calls {@code fit()} and {@code close()}; {@link #stopFit()} may be
 * called from anywhere.
 */
public final class ParallelWrapper implements AutoCloseable {
  // Package-private: FitRun (one fit()) reads the settings and fills the replicas.
  final Model net;
  final int workers;
  final int prefetchBuffer;
  final int averagingFrequency;
  final boolean reportScoreAfterAveraging;
  final boolean averageUpdaters;
  final Device[] devices; // per worker
  final Model[] replicas; // per worker, made by the worker's first fit()
  final List<TrainingListener> listeners = new CopyOnWriteArrayList<>();
  volatile boolean stopRequested;
  private final Object reportLock = new Object();
  private long reported; // per-minibatch iterationDone calls made, guarded by reportLock
  private volatile boolean fitting;
  private boolean closed;

  private ParallelWrapper(Builder b) {
    net = b.net;
    workers = b.workers;
    prefetchBuffer = b.prefetchBuffer;
    averagingFrequency = b.averagingFrequency;
    reportScoreAfterAveraging = b.reportScoreAfterAveraging;
    averageUpdaters = b.averageUpdaters;
    devices = new Device[workers];
    Device[] pool = b.devices != null ? b.devices : defaultDevices();
    for (int w = 0; w < workers; ++w) {
      devices[w] = pool[w % pool.length];
    }
    replicas = new Model[workers];
    listeners.addAll(b.listeners);
  }

  private static Device[] defaultDevices() {
    int cuda = Device.count(Device.Type.CUDA);
    if (cuda == 0) {
      return new Device[] {Device.cpu()};
    }
    Device[] d = new Device[cuda];
    for (int i = 0; i < cuda; ++i) {
      d[i] = Device.cuda(i);
    }
    return d;
  }

  /**
   * The network this wrapper trains (the one given to the builder), as the type the caller expects:
   * {@code MultiLayerNetwork net = pw.getNetwork()} or {@code ComputationGraph g = pw.getNetwork()}.
   * The cast is unchecked: asking for another kind than the builder was given throws
   * ClassCastException at the caller's assignment.
   *
   * @param <T> the network's type (MultiLayerNetwork, ComputationGraph or Model)
   * @return the network
   */
  @SuppressWarnings("unchecked")
  public <T extends Model> T getNetwork() {
    return (T) net;
  }

  /** The number of workers. */
  public int workers() {
    return workers;
  }

  /** Every how many minibatches (per worker) the workers average. */
  public int averagingFrequency() {
    return averagingFrequency;
  }

  /** The device of each worker, in worker order (a copy). */
  public Device[] devices() {
    return devices.clone();
  }

  /** Replaces the wrapper's listeners. */
  public void setListeners(TrainingListener... ls) {
    checkListeners(ls);
    listeners.clear();
    listeners.addAll(Arrays.asList(ls));
  }

  /** Adds listeners to the wrapper's. */
  public void addListeners(TrainingListener... ls) {
    checkListeners(ls);
    listeners.addAll(Arrays.asList(ls));
  }

  /** The wrapper's listeners: the live list (changes take effect at the next call). */
  public List<TrainingListener> getListeners() {
    return listeners;
  }

  /** The listeners fit() calls: the network's own, then the wrapper's not among them (see the class comment). */
  List<TrainingListener> activeListeners() {
    List<TrainingListener> all = new ArrayList<>(net.getListeners());
    for (TrainingListener l : listeners) {
      if (all.stream().noneMatch(x -> x == l)) {
        all.add(l);
      }
    }
    return all;
  }

  private static void checkListeners(TrainingListener[] ls) {
    if (ls == null || Arrays.asList(ls).contains(null)) {
      throw new IllegalArgumentException("ParallelWrapper: listeners must not be null");
    }
  }

  /**
   * Asks the {@code fit()} in progress to stop early: no further minibatch is taken from the
   * iterator, the workers drop the ones still queued, and the last averaging happens as usual (so
   * the network holds the mean of what was trained). Meant for listeners (early stopping); no effect
   * when no {@code fit()} runs.
   */
  public void stopFit() {
    if (fitting) {
      stopRequested = true;
    }
  }

  /**
   * Trains one epoch over the iterator (reset first when it has nothing left), as described in the
   * class comment; the network then holds the averaged model.
   *
   * @param it the training data; each DataSet taken is closed
   * @throws IllegalArgumentException if {@code it} is null, or a worker failed with one
   * @throws IllegalStateException if the wrapper is closed or already fitting, or a worker failed
   */
  public void fit(DataSetIterator it) {
    if (it == null) {
      throw new IllegalArgumentException("ParallelWrapper.fit: the iterator must not be null");
    }
    if (closed) {
      throw new IllegalStateException("ParallelWrapper: closed");
    }
    if (fitting) {
      throw new IllegalStateException("ParallelWrapper.fit: already fitting (one thread at a time)");
    }
    fitting = true;
    stopRequested = false;
    boolean cpu = Arrays.stream(devices).allMatch(d -> d.type() == Device.Type.CPU);
    try {
      if (!it.hasNext()) {
        it.reset();
      }
      if (cpu) {
        CpuThreads.share(workers);
      }
      try {
        new FitRun(this).run(it);
      } finally {
        if (cpu) {
          CpuThreads.restore();
        }
      }
    } finally {
      fitting = false;
    }
  }

  /** The number of iterationDone calls an epoch will make, or -1 if the iterator cannot tell. */
  long iterationsInEpoch(DataSetIterator it) {
    int batch = it.batchSize();
    long examples = it.numExamples();
    if (batch <= 0 || examples <= 0) {
      return -1;
    }
    long minibatches = (examples + batch - 1) / batch;
    if (!reportScoreAfterAveraging) {
      return minibatches;
    }
    long first = (minibatches + workers - 1) / workers; // worker 0 has the most and meets the most
    return (first + averagingFrequency - 1) / averagingFrequency;
  }

  /** Closes every replica. The network itself stays the caller's. */
  @Override
  public void close() {
    if (fitting) {
      throw new IllegalStateException("ParallelWrapper.close: fit() is running");
    }
    if (closed) {
      return;
    }
    closed = true;
    for (int w = 0; w < workers; ++w) {
      if (replicas[w] != null) {
        replicas[w].close();
        replicas[w] = null;
      }
    }
  }

  /** After an averaging: iterationDone numbered with the network's (just advanced) iteration count. */
  void reportAveraged(int epoch, double score, int examples) {
    synchronized (reportLock) {
      report(net.getIterationCount(), epoch, score, examples);
    }
  }

  /** After a worker's minibatch, from its thread: iterationDone numbered by counting these calls. */
  void reportMinibatch(int epoch, double score, int examples) {
    synchronized (reportLock) {
      report(++reported, epoch, score, examples);
    }
  }

  /** Calls the listeners' iterationDone; the caller holds reportLock (one call at a time, from any thread). */
  private void report(long iteration, int epoch, double score, int examples) {
    for (TrainingListener l : activeListeners()) {
      l.iterationDone(net, iteration, epoch, score, examples);
    }
  }

  /** Shares cpu.threads out among the workers while any fit() on the cpu runs (see the class comment). */
  private static final class CpuThreads {
    private static int active;
    private static String before;

    static synchronized void share(int workers) {
      if (active == 0) {
        before = Ndrt.config("cpu.threads");
        int threads = Integer.parseInt(before);
        Ndrt.setConfig("cpu.threads", Integer.toString(Math.max(1, threads / workers)));
      }
      ++active;
    }

    static synchronized void restore() {
      if (--active == 0) {
        Ndrt.setConfig("cpu.threads", before);
      }
    }
  }

  /** Builds a {@link ParallelWrapper}; every setting has Deeplearning4j's default unless noted. */
  public static final class Builder {
    private final Model net;
    private int workers;
    private int prefetchBuffer = 16;
    private int averagingFrequency = 1;
    private boolean reportScoreAfterAveraging = true;
    private boolean averageUpdaters = true;
    private Device[] devices;
    private final List<TrainingListener> listeners = new ArrayList<>();

    /**
     * @param net the network to train (a MultiLayerNetwork, or a ComputationGraph with one input and
     *     one output), initialised ({@code init()}); it receives the averaged model
     * @throws IllegalArgumentException if {@code net} is null
     * @throws IllegalStateException if it is not initialised or is closed
     */
    public Builder(Model net) {
      if (net == null) {
        throw new IllegalArgumentException("ParallelWrapper.Builder: the network must not be null");
      }
      net.numParams(); // fails now, with the network's message, if it is not initialised
      this.net = net;
      int cuda = Device.count(Device.Type.CUDA);
      this.workers = cuda > 0 ? cuda : 2;
    }

    /** Worker threads (default: one per CUDA device, else 2). */
    public Builder workers(int n) {
      this.workers = atLeastOne("workers", n);
      return this;
    }

    /** Minibatches queued ahead per worker (default 16). */
    public Builder prefetchBuffer(int n) {
      this.prefetchBuffer = atLeastOne("prefetchBuffer", n);
      return this;
    }

    /** Minibatches each worker fits between two averagings (default 1). */
    public Builder averagingFrequency(int n) {
      this.averagingFrequency = atLeastOne("averagingFrequency", n);
      return this;
    }

    /**
     * True (default here; Deeplearning4j's is false): listeners get one iterationDone per averaging,
     * with the mean score; false: one per minibatch of each worker.
     */
    public Builder reportScoreAfterAveraging(boolean b) {
      this.reportScoreAfterAveraging = b;
      return this;
    }

    /** Average the updater state (momentum, Adam moments) along with the parameters (default true). */
    public Builder averageUpdaters(boolean b) {
      this.averageUpdaters = b;
      return this;
    }

    /** The devices to spread the workers over, round-robin (not in Deeplearning4j; default: see the class comment). */
    public Builder devices(Device... ds) {
      if (ds == null || ds.length == 0 || Arrays.asList(ds).contains(null)) {
        throw new IllegalArgumentException("ParallelWrapper.Builder.devices: need at least one device, none null");
      }
      for (Device d : ds) {
        try {
          d.name(); // fails for a device that does not exist
        } catch (NdrtException e) {
          throw new IllegalArgumentException("ParallelWrapper.Builder.devices: no device " + d + ": " + e.getMessage(), e);
        }
      }
      this.devices = ds.clone();
      return this;
    }

    /** The wrapper's listeners (replacing any set before). */
    public Builder listeners(TrainingListener... ls) {
      checkListeners(ls);
      listeners.clear();
      listeners.addAll(Arrays.asList(ls));
      return this;
    }

    /** A wrapper holding no thread and no replica yet (both come with the first fit()). */
    public ParallelWrapper build() {
      return new ParallelWrapper(this);
    }

    private static int atLeastOne(String what, int n) {
      if (n < 1) {
        throw new IllegalArgumentException("ParallelWrapper.Builder: " + what + " must be >= 1, got " + n);
      }
      return n;
    }
  }
}
