package org.ndrt.ui;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.ndrt.Memory;
import org.ndrt.MemoryStats;
import org.ndrt.Ndrt;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.Model;
import org.ndrt.nn.ParameterSummaries;
import org.ndrt.nn.conf.layers.Layer;
import org.ndrt.nn.listeners.TrainingListener;

/**
 * Records a training run for the dashboard ({@link UIServer}) into a {@link StatsRouter}: Deeplearning4j's
 * StatsListener on ndrt. Works wherever a TrainingListener is called: MultiLayerNetwork,
 * ComputationGraph, ParallelWrapper (after each averaging, on the averaged network) and
 * DistributedTrainer (its listeners run on rank 0, which so collects the run).
 *
 * <p>Records (JSON, {@link StatsRecord}): once per session a {@code "static"} one (model kind,
 * parameter count, updater, learning rate, dtype, ndrt version, the layers with name, type, nIn,
 * nOut, activation, parameter count); then every {@code frequency} iterations an {@code "update"}:
 * iteration, epoch, time (ms since 1970), score, examples, iterationMs (wall time since the previous
 * minibatch ended, or since the epoch started), examplesPerSecond, learningRate, memory (the CPU
 * pool's inUse, cached, peak bytes). Every {@code summaryEvery} iterations it adds "layers":
 * per layer the L2 norm and mean |x| of its trained parameters and gradients, the norm of the last
 * update and update:parameter ratio (from a copy of the parameters taken one iteration before) and,
 * where the network's fit gives them (MultiLayerNetwork, ComputationGraph; not in a profiled step),
 * the mean |x| and RMS of its activations (an output layer's: its pre-activation). Every {@code
 * profileEvery} iterations (0: never) one step runs under the runtime's profiler and the record
 * adds "profile": {stepMs, ops:[{op, backend, impl, dtype, calls, ms}]}, the slowest op first (the
 * profiler is global: do not use this and the profiler elsewhere at once).
 */
public class StatsListener implements TrainingListener {
  private final StatsRouter router;
  private final String session;
  private final String worker;
  private final int frequency;
  private final int summaryEvery;
  private final int profileEvery;
  private boolean staticSent;
  private long lastNanos;
  private Tensor snapshot;        // parameters after iteration snapshotAt, for the update ratio
  private long snapshotAt = -1;
  private double[][] activations;  // per layer {meanAbs, rms} of the forward pass being recorded
  private boolean profiling;       // the profiler runs until the next iterationDone
  private long lastIteration = -1;  // the iteration of the previous call
  private long stride = 1;          // iterations between calls: 1, or more under ParallelWrapper

  /** Records every iteration; layer summaries every 10; no profiling. */
  public StatsListener(StatsRouter router) {
    this(router, 1);
  }

  /** Records every {@code frequency} iterations; layer summaries every max(10, frequency) iterations. */
  public StatsListener(StatsRouter router, int frequency) {
    this(builder(router).frequency(frequency));
  }

  private StatsListener(Builder b) {
    if (b.router == null) {
      throw new IllegalArgumentException("StatsListener: the router (a StatsStorage) must not be null");
    }
    if (b.frequency < 1 || b.summaryEvery < 1 || b.profileEvery < 0) {
      throw new IllegalArgumentException("StatsListener: frequency and summaryEvery must be >= 1, profileEvery >= 0;"
          + " got " + b.frequency + ", " + b.summaryEvery + ", " + b.profileEvery);
    }
    router = b.router;
    session = b.session != null ? b.session : UUID.randomUUID().toString();
    worker = b.worker;
    frequency = b.frequency;
    summaryEvery = b.summaryEvery > 0 && b.summarySet ? b.summaryEvery : Math.max(10, b.frequency);
    profileEvery = b.profileEvery;
  }

  public static Builder builder(StatsRouter router) {
    return new Builder(router);
  }

  /** Options of a StatsListener. */
  public static final class Builder {
    private final StatsRouter router;
    private String session;
    private String worker = "0";
    private int frequency = 1;
    private int summaryEvery = 10;
    private boolean summarySet;
    private int profileEvery;

    private Builder(StatsRouter router) {
      this.router = router;
    }

    /** The session id (default: a random UUID). */
    public Builder sessionId(String id) {
      session = id;
      return this;
    }

    /** The worker id written in each record (default "0"). */
    public Builder workerId(String id) {
      if (id == null || id.isEmpty()) {
        throw new IllegalArgumentException("workerId must not be empty");
      }
      worker = id;
      return this;
    }

    /** Records iterations whose number is a multiple of {@code n}. */
    public Builder frequency(int n) {
      frequency = n;
      return this;
    }

    /** Adds the per-layer summaries every {@code n} iterations (a parameter copy, a few reductions per tensor). */
    public Builder summaryEvery(int n) {
      summaryEvery = n;
      summarySet = true;
      return this;
    }

    /** Profiles one step every {@code n} iterations (0: never). */
    public Builder profileEvery(int n) {
      profileEvery = n;
      return this;
    }

    public StatsListener build() {
      return new StatsListener(this);
    }
  }

  public String getSessionId() {
    return session;
  }

  public String getWorkerId() {
    return worker;
  }

  public StatsRouter getRouter() {
    return router;
  }

  @Override
  public synchronized void onEpochStart(Model model, int epoch, long iterationsInEpoch, int batchSize) {
    sendStatic(model);
    lastNanos = System.nanoTime();
  }

  @Override
  public synchronized boolean wantsActivations(Model model) {
    long next = model.getIterationCount() + 1;
    // Not in a profiled step: the profile shows the step's own ops, not the summaries' reductions.
    return next % summaryEvery == 0 && !profiling;
  }

  @Override
  public synchronized void onForwardPass(Model model, int layer, Tensor activation) {
    int n = model.configuration().layers().size();
    if (activations == null || activations.length != n) {
      activations = new double[n][];
    }
    if (layer >= 0 && layer < n) {
      activations[layer] = ParameterSummaries.meanAbsAndRms(activation);
    }
  }

  @Override
  public synchronized void iterationDone(Model model, long iteration, int epoch, double score, int examples) {
    long now = System.nanoTime();
    double ms = lastNanos == 0 ? Double.NaN : (now - lastNanos) / 1e6;
    sendStatic(model);
    List<Map<String, Object>> profile = null;
    if (profiling) {
      Ndrt.setProfilerEnabled(false);
      profile = parseProfile(Ndrt.profilerSummary());
      profiling = false;
    }
    if (lastIteration >= 0 && iteration > lastIteration) {
      stride = iteration - lastIteration;  // ParallelWrapper reports once per averaging round
    }
    boolean summary = crosses(iteration, summaryEvery);
    if (crosses(iteration, frequency) || summary || profile != null) {
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("session", session);
      r.put("type", StatsRecord.UPDATE);
      r.put("worker", worker);
      r.put("iteration", iteration);
      r.put("epoch", epoch);
      r.put("time", System.currentTimeMillis());
      r.put("score", score);
      r.put("examples", examples);
      r.put("iterationMs", ms);
      r.put("examplesPerSecond", ms > 0 ? examples * 1000.0 / ms : Double.NaN);
      r.put("learningRate", model.configuration().updater().learningRate());
      MemoryStats m = Memory.stats();
      Map<String, Object> mem = new LinkedHashMap<>();
      mem.put("inUse", m.inUse());
      mem.put("cached", m.cached());
      mem.put("peak", m.peak());
      r.put("memory", mem);
      if (summary) {
        r.put("layers", layerSummaries(model, snapshotAt >= 0 && snapshotAt == lastIteration ? snapshot : null));
      }
      if (profile != null) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("stepMs", ms);
        p.put("ops", profile);
        r.put("profile", p);
      }
      router.put(StatsRecord.of(r));
    }
    activations = null;
    // The next call's update is measured against this copy (at the first call too: the stride is not known yet).
    if (crosses(iteration + stride, summaryEvery) || lastIteration < 0) {
      if (snapshot == null || snapshot.numel() != model.numParams()) {
        closeSnapshot();
        snapshot = ParameterSummaries.snapshot(model);
      } else {
        Ops.copy(model.params(), snapshot);
      }
      snapshotAt = iteration;
    }
    if (profileEvery > 0 && crosses(iteration + stride, profileEvery)) {
      Ndrt.clearProfiler();
      Ndrt.setProfilerEnabled(true);
      profiling = true;
    }
    lastIteration = iteration;
    lastNanos = System.nanoTime();  // the listener's own work is not the next minibatch's time
  }

  /**
   * Whether {@code iteration} reaches a multiple of {@code every} not reached at the previous call:
   * every {@code every}-th iteration when each one is reported, and still one call per period
   * when they come {@link #stride} at a time.
   */
  private boolean crosses(long iteration, int every) {
    long from = iteration - stride;  // the previous call's (or, for the next call, this one's) iteration
    return iteration % every == 0 || (stride > 1 && iteration / every > from / every);
  }

  private List<Object> layerSummaries(Model model, Tensor before) {
    ParameterSummaries.Layer[] s = ParameterSummaries.of(model, before);
    // A network whose whole gradient is exactly zero computed none (ParallelWrapper's averaged one):
    // its gradients are left out rather than shown as zeros.
    boolean noGradients = true;
    for (ParameterSummaries.Layer l : s) {
      noGradients &= l.gradNorm() == 0;
    }
    List<Object> out = new ArrayList<>(s.length);
    for (ParameterSummaries.Layer l : s) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("index", l.index());
      m.put("paramNorm", l.paramNorm());
      m.put("paramMeanAbs", l.paramMeanAbs());
      m.put("gradNorm", noGradients ? null : l.gradNorm());
      m.put("gradMeanAbs", noGradients ? null : l.gradMeanAbs());
      m.put("updateNorm", l.updateNorm());
      m.put("updateRatio", l.updateParamRatio());
      double[] a = activations != null && l.index() < activations.length ? activations[l.index()] : null;
      m.put("activationMeanAbs", a == null ? null : a[0]);
      m.put("activationRms", a == null ? null : a[1]);
      out.add(m);
    }
    return out;
  }

  private void sendStatic(Model model) {
    if (staticSent) {
      return;
    }
    staticSent = true;
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("session", session);
    r.put("type", StatsRecord.STATIC);
    r.put("worker", worker);
    r.put("time", System.currentTimeMillis());
    r.put("model", model.getClass().getSimpleName());
    r.put("numParams", model.numParams());
    r.put("updater", model.configuration().updater().getClass().getSimpleName());
    r.put("learningRate", model.configuration().updater().learningRate());
    r.put("dataType", model.configuration().dataType().toString());
    r.put("ndrtVersion", Ndrt.version());
    List<Object> layers = new ArrayList<>();
    List<Layer> ls = model.configuration().layers();
    for (int i = 0; i < ls.size(); ++i) {
      Layer l = ls.get(i);
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("index", i);
      m.put("name", l.name() != null ? l.name() : "layer" + i);
      m.put("type", l.getClass().getSimpleName());
      m.put("nIn", l.nIn());
      m.put("nOut", l.nOut());
      m.put("activation", l.activation() == null ? null : l.activation().toString());
      m.put("params", model.numParams(i));
      layers.add(m);
    }
    r.put("layers", layers);
    router.put(StatsRecord.of(r));
  }

  /** The profiler's per-op table (Ndrt.profilerSummary: op backend impl dtype calls total_us ...) as records. */
  static List<Map<String, Object>> parseProfile(String summary) {
    List<Map<String, Object>> ops = new ArrayList<>();
    String[] lines = summary.split("\n");
    for (int i = 1; i < lines.length; ++i) {  // line 0 is the header
      String[] f = lines[i].trim().split("\\s+");
      if (f.length < 9) {
        continue;
      }
      int k = f.length;  // the implementation may hold spaces: the fixed columns are counted from both ends
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("op", f[0]);
      m.put("backend", f[1]);
      m.put("impl", String.join(" ", java.util.Arrays.copyOfRange(f, 2, k - 6)));
      m.put("dtype", f[k - 6]);
      try {
        m.put("calls", Long.parseLong(f[k - 5]));
        m.put("ms", Double.parseDouble(f[k - 4]) / 1e3);
      } catch (NumberFormatException e) {
        continue;
      }
      ops.add(m);
    }
    ops.sort((a, b) -> Double.compare((Double) b.get("ms"), (Double) a.get("ms")));
    return ops;
  }

  private void closeSnapshot() {
    if (snapshot != null) {
      snapshot.close();
      snapshot = null;
    }
  }

  /** Releases the parameter copy (the listener keeps working; it makes a new one when needed). */
  public synchronized void close() {
    closeSnapshot();
    snapshotAt = -1;
    if (profiling) {
      Ndrt.setProfilerEnabled(false);
      profiling = false;
    }
  }
}
