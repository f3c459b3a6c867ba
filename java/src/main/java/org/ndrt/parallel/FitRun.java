package org.ndrt.parallel;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.ndrt.DType;
import org.ndrt.Device;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.data.DataSetIterator;
import org.ndrt.nn.Model;
import org.ndrt.nn.RandomStreams;
import org.ndrt.nn.listeners.TrainingListener;

/**
 * One {@link ParallelWrapper#fit}: the feeding (on the caller's thread), the worker threads, and
 * where they meet to average. Its monitor guards the meeting. See ParallelWrapper's class comment
 * for the semantics.
 */
final class FitRun {
  private static final long FEEDER_POLL_MS = 20; // how soon a blocked feeder sees a failed worker

  /** A minibatch in a worker's queue; {@link #END} (no DataSet) says the epoch's data is over. */
  private record Item(DataSet ds) {}

  private static final Item END = new Item(null);

  /** Thrown inside a worker to unwind when another thread has failed. */
  private static final class Aborted extends RuntimeException {
    Aborted() {
      super(null, null, false, false);
    }
  }

  private final ParallelWrapper pw;
  private final Model net;
  private final int workers;
  private final Model[] replicas;
  private final Device[] devices;
  private final List<BlockingQueue<Item>> queues = new ArrayList<>();
  private final Thread[] threads;
  private final double[] lastScore;
  private final int[] roundExamples; // examples fitted since the last meeting
  private final boolean[] present; // arrived at this meeting, having trained
  private final int epoch;
  private volatile Throwable failure;
  private int failedWorker = -1; // -1: the feeding thread
  private int registered; // workers still training this epoch
  private int arrived;
  private int leaving;
  private long meeting;
  private File saved; // the network saved, for replicas on another device than its own

  FitRun(ParallelWrapper pw) {
    this.pw = pw;
    net = pw.net;
    workers = pw.workers;
    replicas = pw.replicas;
    devices = pw.devices;
    threads = new Thread[workers];
    lastScore = new double[workers];
    roundExamples = new int[workers];
    present = new boolean[workers];
    epoch = net.getEpochCount();
    registered = workers;
  }

  void run(DataSetIterator it) {
    for (TrainingListener l : pw.activeListeners()) {
      l.onEpochStart(net, epoch, pw.iterationsInEpoch(it), it.batchSize());
    }
    try {
      saved = needsSavedCopy() ? saveNetwork() : null;
      for (int w = 0; w < workers; ++w) {
        queues.add(new ArrayBlockingQueue<>(pw.prefetchBuffer));
        int id = w;
        threads[w] = new Thread(() -> work(id), "ndrt-worker-" + w);
        threads[w].setDaemon(true);
      }
      for (Thread t : threads) {
        t.start();
      }
      feed(it);
    } catch (Throwable t) {
      fail(-1, t);
    } finally {
      joinWorkers();
      try {
        advanceNetworkStreams(); // a failed fit's draws too: the next fit must not repeat them
      } catch (RuntimeException e) {
        fail(-1, e); // surfaces below, unless an earlier failure does
      }
      for (BlockingQueue<Item> q : queues) {
        q.forEach(FitRun::close);
        q.clear();
      }
      if (saved != null && !saved.delete()) {
        saved.deleteOnExit();
      }
    }
    if (failure != null) {
      throw surfaced();
    }
    for (TrainingListener l : pw.activeListeners()) {
      l.onEpochEnd(net, epoch);
    }
    net.incrementEpochCount();
  }

  private boolean needsSavedCopy() {
    Device home = net.params().device();
    for (int w = 0; w < workers; ++w) {
      if (replicas[w] == null && !devices[w].equals(home)) {
        return true;
      }
    }
    return false;
  }

  private File saveNetwork() {
    try {
      File f = Files.createTempFile("ndrt-replica-", ".zip").toFile();
      try {
        net.save(f);
      } catch (IOException | RuntimeException e) {
        f.delete();
        throw e;
      }
      return f;
    } catch (IOException e) {
      throw new UncheckedIOException("ParallelWrapper: saving the network for the other devices' replicas", e);
    }
  }

  /** The caller's part: minibatches round-robin to the workers, then END to each. */
  private void feed(DataSetIterator it) throws InterruptedException {
    int next = 0;
    while (failure == null && !pw.stopRequested && it.hasNext()) {
      DataSet ds = it.next();
      if (ds == null) {
        throw new IllegalStateException("the training iterator returned a null DataSet");
      }
      if (!hand(next, new Item(ds))) {
        return;
      }
      next = (next + 1) % workers;
    }
    // END to every worker, in whatever order there is room: a worker stopped early may be waiting
    // for another's END while its own queue is still full.
    boolean[] sent = new boolean[workers];
    for (int left = workers; left > 0 && failure == null;) {
      for (int w = 0; w < workers; ++w) {
        if (!sent[w] && queues.get(w).offer(END, FEEDER_POLL_MS / workers + 1, TimeUnit.MILLISECONDS)) {
          sent[w] = true;
          --left;
        }
      }
    }
  }

  /** Queues the item for worker w; false (item closed) if a worker failed while waiting for room. */
  private boolean hand(int w, Item item) throws InterruptedException {
    try {
      while (!queues.get(w).offer(item, FEEDER_POLL_MS, TimeUnit.MILLISECONDS)) {
        if (failure != null) {
          close(item);
          return false;
        }
      }
      return true;
    } catch (InterruptedException e) {
      close(item);
      throw e;
    }
  }

  private void work(int w) {
    Item held = null;
    try {
      Device dev = devices[w].attach();
      Model replica = replica(w);
      int inRound = 0; // minibatches fitted since the last meeting
      for (;;) {
        if (failure != null) {
          return;
        }
        held = queues.get(w).take();
        if (held == END) {
          held = null;
          dev.synchronize();
          meet(w, inRound > 0, true);
          return;
        }
        if (pw.stopRequested) { // stopping: drop what is left, then meet a last time at END
          close(held);
          held = null;
          continue;
        }
        if (inRound == pw.averagingFrequency) {
          dev.synchronize();
          meet(w, true, false);
          pull(w, pw.averageUpdaters);
          inRound = 0;
        }
        Item item = held;
        held = null;
        try (DataSet given = item.ds(); DataSet local = onDevice(given, dev)) {
          replica.fit(local);
          lastScore[w] = replica.score();
          roundExamples[w] += local.numExamples();
          ++inRound;
          if (!pw.reportScoreAfterAveraging) {
            pw.reportMinibatch(epoch, lastScore[w], local.numExamples());
          }
        }
      }
    } catch (Aborted | InterruptedException e) {
      fail(w, e); // only records it when no failure came first (then it is what stopped us)
    } catch (Throwable t) {
      fail(w, t);
    } finally {
      close(held);
    }
  }

  /**
   * The worker's replica: made on its first fit() (drawing from random stream w), else set to the
   * network's parameters; either way its random streams start at the network's offsets.
   */
  private Model replica(int w) throws IOException {
    if (replicas[w] == null) {
      replicas[w] = saved != null && !devices[w].equals(net.params().device())
          ? Model.load(saved) : net.clone();
      RandomStreams.setStream(replicas[w], w);
    } else {
      pull(w, pw.averageUpdaters); // without averaged updaters each replica keeps its own state
    }
    RandomStreams.setOffsets(replicas[w], RandomStreams.offsets(net));
    return replicas[w];
  }

  /**
   * Moves each of the network's random stream offsets to the furthest any replica has reached, so
   * that later draws (from stream 0, or from any worker's stream in the next fit) repeat none. Only
   * while no worker trains: at a meeting, or after the workers are gone.
   */
  private void advanceNetworkStreams() {
    long[] furthest = RandomStreams.offsets(net);
    for (Model r : replicas) {
      if (r != null) {
        long[] o = RandomStreams.offsets(r);
        for (int i = 0; i < o.length; ++i) {
          furthest[i] = Math.max(furthest[i], o[i]);
        }
      }
    }
    RandomStreams.setOffsets(net, furthest);
  }

  /**
   * Copies the network's parameters and iteration count (and updater state with its step count)
   * into worker w's replica, on w's thread.
   */
  private void pull(int w, boolean state) {
    copyInto(net.params(), replicas[w]::setParams, devices[w]);
    replicas[w].setIterationCount(net.getIterationCount());
    if (state) {
      copyInto(net.updaterState(), replicas[w]::setUpdaterState, devices[w]);
      replicas[w].setUpdaterStepCount(net.getUpdaterStepCount());
    }
  }

  private void copyInto(Tensor src, Consumer<Tensor> set, Device dev) {
    if (src.numel() == 0) {
      return;
    }
    if (src.device().equals(dev)) {
      set.accept(src);
    } else {
      try (Tensor t = src.to(dev)) {
        set.accept(t);
      }
    }
  }

  /**
   * Worker w arrives ({@code trained}: it fitted minibatches since the last meeting; {@code leave}:
   * its data is over, it does not wait). The last to arrive averages; the others wait for it.
   */
  private synchronized void meet(int w, boolean trained, boolean leave) throws InterruptedException {
    if (failure != null) {
      throw new Aborted();
    }
    present[w] = trained;
    ++arrived;
    if (leave) {
      ++leaving;
    }
    if (arrived == registered) {
      averageAndReport();
      Arrays.fill(present, false);
      Arrays.fill(roundExamples, 0);
      registered -= leaving;
      arrived = 0;
      leaving = 0;
      ++meeting;
      notifyAll();
    } else if (!leave) {
      long m = meeting;
      while (meeting == m) {
        if (failure != null) {
          throw new Aborted();
        }
        wait();
      }
    }
  }

  /** On the last thread to arrive (the others wait): the mean into the network, in worker order. */
  private void averageAndReport() {
    int[] who = IntStream.range(0, workers).filter(w -> present[w]).toArray();
    if (who.length == 0) {
      return; // nobody trained since the last averaging: the network already holds the mean
    }
    Device mine = Device.current();
    Device home = net.params().device();
    if (!mine.equals(home)) {
      home.attach();
    }
    try {
      average(who, Model::params, net.params(), home);
      if (pw.averageUpdaters) {
        average(who, Model::updaterState, net.updaterState(), home);
      }
      home.synchronize();
    } finally {
      if (!mine.equals(home)) {
        mine.attach();
      }
    }
    // The replicas started the round at the network's counts: the network takes theirs (the largest,
    // when the epoch's last round gave some fewer minibatches).
    long iterations = 0;
    long steps = 0;
    for (int w : who) {
      iterations = Math.max(iterations, replicas[w].getIterationCount());
      steps = Math.max(steps, replicas[w].getUpdaterStepCount());
    }
    net.setIterationCount(iterations);
    advanceNetworkStreams(); // so a listener saving the network here saves streams past the draws
    if (pw.averageUpdaters) {
      net.setUpdaterStepCount(steps); // the step count goes with the averaged state (Adam's bias correction)
    }
    if (pw.reportScoreAfterAveraging) {
      double score = 0;
      int examples = 0;
      for (int w : who) {
        score += lastScore[w];
        examples += roundExamples[w];
      }
      pw.reportAveraged(epoch, score / who.length, examples);
    }
  }

  private void average(int[] who, Function<Model, Tensor> part, Tensor into, Device home) {
    if (into.numel() == 0) {
      return; // no updater state (SGD)
    }
    for (int i = 0; i < who.length; ++i) {
      Tensor src = part.apply(replicas[who[i]]);
      try (Tensor moved = src.device().equals(home) ? null : src.to(home)) {
        Tensor s = moved != null ? moved : src;
        if (i == 0) {
          Ops.copy(s, into);
        } else {
          Ops.add(into, s, into);
        }
      }
    }
    if (who.length > 1) {
      try (Tensor inv = Tensor.scalar(1.0 / who.length, DType.F32)) {
        Ops.mul(into, inv, into);
      }
    }
  }

  /** Records the first failure and wakes everyone: waiting workers unwind, the feeder stops. */
  private void fail(int w, Throwable t) {
    synchronized (this) {
      if (failure != null) {
        return;
      }
      failure = t;
      failedWorker = w;
      notifyAll();
    }
    for (Thread th : threads) {
      if (th != null && th != Thread.currentThread()) {
        th.interrupt();
      }
    }
  }

  private void joinWorkers() {
    boolean interrupted = false;
    for (Thread t : threads) {
      while (t != null) {
        try {
          t.join();
          break;
        } catch (InterruptedException e) {
          interrupted = true; // the caller gives up: stop the workers, keep the flag for the caller
          fail(-1, e);
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private RuntimeException surfaced() {
    Throwable t = failure;
    if (t instanceof Error) {
      throw (Error) t;
    }
    if (failedWorker < 0) {
      if (t instanceof RuntimeException) {
        return (RuntimeException) t; // the iterator's own exception, on the caller's thread
      }
      if (t instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      return new IllegalStateException("ParallelWrapper.fit: feeding the workers failed: " + t, t);
    }
    String msg = "ParallelWrapper.fit: worker " + failedWorker + " (" + devices[failedWorker] + ") failed: " + t;
    return t instanceof IllegalArgumentException ? new IllegalArgumentException(msg, t) : new IllegalStateException(msg, t);
  }

  private static void close(Item item) {
    if (item != null && item.ds() != null) {
      item.ds().close();
    }
  }

  /** The minibatch on {@code dev}: itself, or a copy there (the caller closes both). */
  private static DataSet onDevice(DataSet ds, Device dev) {
    if (ds.features().device().equals(dev) && ds.labels().device().equals(dev)) {
      return ds;
    }
    Tensor f = ds.features().to(dev);
    try {
      return new DataSet(f, ds.labels().to(dev), ds.featuresMask() == null ? null : ds.featuresMask().share(),
          ds.labelsMask() == null ? null : ds.labelsMask().share());  // masks are read on the host
    } catch (RuntimeException e) {
      f.close();
      throw e;
    }
  }
}
