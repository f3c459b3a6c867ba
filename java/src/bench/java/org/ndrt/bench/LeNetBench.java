package org.ndrt.bench;

import com.sun.management.OperatingSystemMXBean;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.ndrt.DType;
import org.ndrt.Ndrt;
import org.ndrt.Ops;
import org.ndrt.capi.NdrtC;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.data.ExampleSource;
import org.ndrt.data.IdxFile;
import org.ndrt.data.MnistDataSetIterator;
import org.ndrt.data.ShardedDataSetIterator;
import org.ndrt.distributed.Communicator;
import org.ndrt.distributed.DistributedTrainer;
import org.ndrt.distributed.ReduceOp;
import org.ndrt.examples.LeNetMnist;
import org.ndrt.nn.MultiLayerNetwork;

/**
 * LeNet training and inference speed from Java, the machine's sgemm rate through the same runtime,
 * and the MNIST split written out for a peer (a benchmark, not a test: tests/bench/run_lenet.sh runs
 * it beside tests/bench/lenet_torch.py).
 *
 * <pre>
 * java -cp ndrt.jar:ndrt-bench.jar org.ndrt.bench.LeNetBench speed [--threads T] [--iters 100]
 *      [--warmup 20] [--reps 5] [--max-seconds 0] [--batch 64] [--seed 123] [--data DIR] [--profile 0|1]
 * java -cp ndrt.jar:ndrt-bench.jar org.ndrt.bench.LeNetBench infer [--threads T] [--iters 100]
 *      [--warmup 20] [--reps 5] [--max-seconds 0] [--batch 256] [--seed 123] [--data DIR] [--profile 0|1]
 * java -cp ndrt.jar:ndrt-bench.jar org.ndrt.bench.LeNetBench sgemm [--threads T] [--size 1024] [--reps 10]
 *      [--warmup 2] [--seed 123]
 * java -cp ndrt.jar:ndrt-bench.jar org.ndrt.bench.LeNetBench export-split OUT_DIR [--data DIR] [--seed 123]
 * mpirun -np N java -cp ndrt.jar:ndrt-bench.jar org.ndrt.bench.LeNetBench dist-speed --split DIR [--threads 1]
 *      [--iters 100] [--warmup 20] [--reps 5] [--batch 64] [--averaging k] [--bucket-bytes B] [--seed 123]
 *      [--profile FILE] [--profile-steps 10]
 * </pre>
 *
 * <p>{@code speed}: trains {@code LeNetMnist.lenet(seed, F32)} on minibatches of the train part,
 * loaded into memory before timing (one epoch of the iterator, cycled), so data loading is not
 * measured. After {@code warmup} iterations it times {@code reps} runs of {@code iters} iterations
 * (warm-up and each run stop early once {@code max-seconds} have passed, when it is above 0: a bound
 * on a busy machine's run time; the JSON line gives the iterations done)
 * and prints one JSON line per run: {@code {"impl":"ndrt-java","threads":T,"img_s":...}}, with the
 * process cpu time over wall time ({@code cpu_util}: how many cores it kept busy), the cores other
 * processes kept busy meanwhile ({@code others_busy}, from /proc/stat; -1 where there is none: on a
 * shared machine it says which runs competed for the cores) and the last loss.
 * {@code --threads} sets {@code cpu.threads}, which governs ndrt's pool, oneDNN's OpenMP threads (set
 * per call) and OpenBLAS's (pinned to one inside ndrt's tiled GEMMs). {@code --profile 1} adds one
 * more run of {@code iters} steps with the runtime's profiler on and prints its per-op summary to
 * stderr (not counted in the JSON lines: the profiler costs time).
 *
 * <p>{@code infer}: the same with {@code output()} (inference mode, no training) in place of
 * {@code fit()}, default batch 256; its JSON lines carry {@code "mode":"infer"} and no loss.
 *
 * <p>{@code sgemm}: the rate of the runtime's f32 {@code matmul} op (OpenBLAS sgemm tiles over ndrt's
 * pool, {@code cpu.threads} as above) on two {@code size} x {@code size} random matrices into a
 * preallocated output: {@code warmup} products, then {@code reps} timed ones, and one JSON line
 * {@code {"impl":"ndrt-java","mode":"sgemm","threads":T,"gflops": median over the products,"size":...}}
 * with {@code cpu_util} and {@code others_busy} over the timed products: the compute limit the
 * LeNet figures are set against.
 *
 * <p>{@code dist-speed} (every rank of an MPI job; tests/bench/run_lenet_dist.sh runs it beside
 * tests/bench/lenet_ddp_torch.py): {@link DistributedTrainer} with gradient sharing (default bucket
 * size, or {@code --bucket-bytes}) or parameter averaging every k minibatches ({@code --averaging k}),
 * {@code --batch} examples per rank and step, {@code --threads} intra-op threads per rank (default 1),
 * on the train part of the split {@code export-split} wrote ({@code --split}): a {@link
 * ShardedDataSetIterator} without shuffling, so rank r's minibatch j is examples {@code [(j * N + r)
 * * b, (j * N + r + 1) * b)}, the slices the DDP peer takes. After {@code warmup} steps, {@code reps}
 * timed runs of {@code iters} steps, each one {@code fit()} call between two barriers (with parameter
 * averaging a run ends at the first averaging at or after {@code iters} steps; the JSON line gives
 * the steps done). Rank 0 prints one JSON line per run: {@code {"impl":"ndrt-java-dist","ranks":N,
 * "img_s": images of all ranks per second, ...}} with {@code cpu_util} summed over the ranks (the
 * cores the job kept busy), {@code others_busy} (cores other processes kept busy meanwhile), and
 * {@code next_ms}: what one minibatch of the iterator costs (it is built inside the timed steps; measured
 * before training). {@code --profile FILE}: {@code --profile-steps} more steps with the runtime's
 * profiler on in every rank: the ops of the training thread and the collectives, which the runtime
 * records on the communicator's thread (backend "mpi"). Rank 0 writes one Chrome trace of all ranks
 * to FILE (pid = rank; the ranks must share the file system, as on one host) and prints to stderr
 * its profiler summary and, per rank, where a step's wall time goes: ops on the training thread
 * (compute), collectives overlapped with them, collectives the training thread had no op beside
 * (exposed communication: it waits, or does Java work), and the rest (Java, data, idle); and per
 * collective its mean and fastest time (the fastest is close to the transfer itself; the rest of the
 * mean is mostly waiting for the other ranks to arrive).
 *
 * <p>{@code export-split}: writes the iterator's training and test sets (the official MNIST, 60,000
 * and 10,000, unless {@code --data} points at other files), each in file order (no per-epoch
 * shuffle), as unsigned-byte IDX files {@code train-images-idx3-ubyte},
 * {@code train-labels-idx1-ubyte}, {@code test-images-idx3-ubyte}, {@code test-labels-idx1-ubyte}, so
 * a peer trains and tests on exactly the same digits.
 */
public final class LeNetBench {
  private LeNetBench() {}

  public static void main(String[] args) throws IOException {
    if (args.length == 0 || args[0].equals("--help")) {
      usage(args.length == 0 ? "missing mode" : null);
    }
    String mode = args[0];
    int first = 1;
    String exportDir = null;
    if (mode.equals("export-split")) {
      if (args.length < 2 || args[1].startsWith("--")) {
        usage("export-split needs an output folder");
      }
      exportDir = args[1];
      first = 2;
    } else if (mode.equals("dist-speed")) {
      DistSpeed.main(args);
      return;
    } else if (!mode.equals("speed") && !mode.equals("infer") && !mode.equals("sgemm")) {
      usage("unknown mode " + mode);
    }
    Speed o = new Speed(mode);
    for (int i = first; i < args.length; i += 2) {
      String a = args[i];
      if (i + 1 >= args.length) {
        usage("missing value after " + a);
      }
      String v = args[i + 1];
      try {
        switch (a) {
          case "--threads": o.threads = positive(a, Integer.parseInt(v)); break;
          case "--iters": o.iters = positive(a, Integer.parseInt(v)); break;
          case "--warmup": o.warmup = Integer.parseInt(v); break;
          case "--reps": o.reps = positive(a, Integer.parseInt(v)); break;
          case "--batch": o.batch = positive(a, Integer.parseInt(v)); break;
          case "--max-seconds": o.maxSeconds = Double.parseDouble(v); break;
          case "--seed": o.seed = Long.parseLong(v); break;
          case "--data": o.data = Path.of(v); break;
          case "--profile": o.profile = Integer.parseInt(v) != 0; break;
          case "--size": o.size = positive(a, Integer.parseInt(v)); break;
          default: usage("unknown option " + a);
        }
      } catch (NumberFormatException e) {
        usage("not a number after " + a + ": " + v);
      }
    }
    if (o.warmup < 0 || !(o.maxSeconds >= 0)) {
      usage("--warmup and --max-seconds must be >= 0");
    }
    if (exportDir != null) {
      exportSplit(Path.of(exportDir), o.data, o.seed);
    } else if (mode.equals("sgemm")) {
      o.sgemm();
    } else {
      o.run();
    }
  }

  private static int positive(String option, int v) {
    if (v < 1) {
      usage(option + " must be >= 1, got " + v);
    }
    return v;
  }

  private static MnistDataSetIterator.Builder mnist(Path data, long seed) {
    MnistDataSetIterator.Builder b = MnistDataSetIterator.builder().seed(seed);
    if (data != null) {
      b.dataDir(data);
    }
    return b;
  }

  // ------------------------------------------------------------------------------------ speed

  /**
   * Wall time, process cpu time and the cores other processes kept busy (-1 where /proc/stat cannot be
   * read) from its creation to {@link #stop()}.
   */
  static final class Meter {
    private static final OperatingSystemMXBean OS =
        (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    final long busy0 = systemBusyNs();
    final long cpu0 = OS.getProcessCpuTime();
    final long t0 = System.nanoTime();
    double wall;
    double cpu;
    double others;

    Meter stop() {
      wall = (System.nanoTime() - t0) * 1e-9;
      cpu = (OS.getProcessCpuTime() - cpu0) * 1e-9;
      long busy1 = systemBusyNs();
      others = busy0 < 0 || busy1 < 0 ? -1 : Math.max(0, (busy1 - busy0) * 1e-9 - cpu) / wall;
      return this;
    }
  }

  /** The speed, infer and sgemm modes' options (defaults as in the usage line) and their runs. */
  static final class Speed {
    final boolean infer;
    int threads;  // 0: leave cpu.threads as it is
    int iters = 100;
    int warmup = 20;
    int reps = 5;
    int batch = 64;
    double maxSeconds;  // 0: no cap
    long seed = 123;
    Path data;
    boolean profile;
    int size = 1024;  // sgemm

    private List<DataSet> batches;
    private int next;

    Speed(String mode) {
      infer = mode.equals("infer");
      if (infer) {
        batch = 256;
      } else if (mode.equals("sgemm")) {  // a product takes tens of ms: fewer of them suffice
        reps = 10;
        warmup = 2;
      }
    }

    /** Sets cpu.threads when asked; the threads ops run on. */
    private int applyThreads() {
      if (threads > 0) {
        Ndrt.setConfig("cpu.threads", Integer.toString(threads));
      }
      return Integer.parseInt(Ndrt.config("cpu.threads"));
    }

    /** Up to {@code n} steps, fewer when {@code capNs} (> 0) has passed since {@code t0}; the steps done. */
    private int steps(MultiLayerNetwork net, int n, long t0, long capNs) {
      int done = 0;
      while (done < n) {
        DataSet ds = batches.get(next);
        if (infer) {
          net.output(ds.features()).close();  // cpu ops have finished when they return
        } else {
          net.fit(ds);  // synchronous: the step reads its loss back
        }
        next = (next + 1) % batches.size();
        ++done;
        if (capNs > 0 && System.nanoTime() - t0 > capNs) {
          break;
        }
      }
      return done;
    }

    void run() throws IOException {
      int t = applyThreads();
      long capNs = (long) (maxSeconds * 1e9);
      batches = new ArrayList<>();
      try {
        MnistDataSetIterator it = mnist(data, seed).batchSize(batch).train(true).build();
        while (it.hasNext()) {
          DataSet ds = it.next();
          if (ds.numExamples() == batch) {  // every timed step has the full batch
            batches.add(ds);
          } else {
            ds.close();
          }
        }
        if (batches.isEmpty()) {
          throw new IllegalStateException("the train part has fewer than " + batch + " examples");
        }
        try (MultiLayerNetwork net = new MultiLayerNetwork(LeNetMnist.lenet(seed, DType.F32))) {
          net.init();
          steps(net, warmup, System.nanoTime(), capNs);
          for (int r = 0; r < reps; ++r) {
            Meter m = new Meter();
            int done = steps(net, iters, m.t0, capNs);
            m.stop();
            String loss = "";
            if (!infer) {
              double l = net.score();
              if (!Double.isFinite(l)) {
                throw new IllegalStateException("training diverged: loss " + l + " after run " + r);
              }
              loss = String.format(Locale.ROOT, "\"loss\":%.4f,", l);
            }
            System.out.printf(Locale.ROOT,
                "{\"impl\":\"ndrt-java\",%s\"variant\":\"f32\",\"threads\":%d,\"batch\":%d,\"iters\":%d,\"rep\":%d,"
                    + "\"img_s\":%.1f,\"ms_per_iter\":%.3f,\"cpu_util\":%.2f,\"others_busy\":%.2f,%s\"os_threads\":%d}%n",
                infer ? "\"mode\":\"infer\"," : "", t, batch, done, r, (double) done * batch / m.wall,
                m.wall * 1e3 / done, m.cpu / m.wall, m.others, loss, osThreads());
          }
          if (profile) {
            NdrtC.profiler_clear();
            NdrtC.profiler_enable(1);
            int done;
            try {
              done = steps(net, iters, System.nanoTime(), 0);
            } finally {
              NdrtC.profiler_enable(0);
            }
            System.err.printf(Locale.ROOT, "profile of %d steps, %d threads:%n%s%n", done, t, NdrtC.profiler_summary());
          }
        }
      } finally {
        for (DataSet ds : batches) {
          ds.close();
        }
      }
    }

    /** The sgemm mode: the median rate of {@code reps} f32 matmul ops after {@code warmup} (see the class comment). */
    void sgemm() {
      int t = applyThreads();
      long n = size;
      try (Tensor a = Tensor.rand(seed, DType.F32, n, n); Tensor b = Tensor.rand(seed + 1, DType.F32, n, n);
           Tensor y = Tensor.empty(DType.F32, n, n)) {
        for (int i = 0; i < warmup; ++i) {
          Ops.matmul(a, b, false, false, y);  // into y: no allocation inside the timing
        }
        double[] s = new double[reps];
        Meter m = new Meter();
        for (int r = 0; r < reps; ++r) {
          long t0 = System.nanoTime();
          Ops.matmul(a, b, false, false, y);
          s[r] = (System.nanoTime() - t0) * 1e-9;
        }
        m.stop();
        Arrays.sort(s);
        double median = (s[(reps - 1) / 2] + s[reps / 2]) / 2;
        System.out.printf(Locale.ROOT,
            "{\"impl\":\"ndrt-java\",\"mode\":\"sgemm\",\"threads\":%d,\"gflops\":%.1f,\"size\":%d,\"reps\":%d,"
                + "\"best_gflops\":%.1f,\"cpu_util\":%.2f,\"others_busy\":%.2f}%n",
            t, 2.0 * n * n * n / median * 1e-9, n, reps, 2.0 * n * n * n / s[0] * 1e-9, m.cpu / m.wall, m.others);
      }
    }
  }

  // ------------------------------------------------------------------------------ dist-speed

  /** The dist-speed mode: options, timed runs, profile (see the class comment). */
  static final class DistSpeed {
    int threads = 1;
    int iters = 100;
    int warmup = 20;
    int reps = 5;
    int batch = 64;
    int averaging; // 0: gradient sharing
    long bucketBytes = DistributedTrainer.DEFAULT_BUCKET_BYTES;
    long seed = 123;
    Path split;
    Path profile;
    int profileSteps = 10;

    private Communicator world;
    private int rank;
    private int size;

    static void main(String[] args) throws IOException {
      DistSpeed o = new DistSpeed();
      for (int i = 1; i < args.length; i += 2) {
        String a = args[i];
        if (i + 1 >= args.length) {
          usage("missing value after " + a);
        }
        String v = args[i + 1];
        try {
          switch (a) {
            case "--threads": o.threads = positive(a, Integer.parseInt(v)); break;
            case "--iters": o.iters = positive(a, Integer.parseInt(v)); break;
            case "--warmup": o.warmup = Integer.parseInt(v); break;
            case "--reps": o.reps = positive(a, Integer.parseInt(v)); break;
            case "--batch": o.batch = positive(a, Integer.parseInt(v)); break;
            case "--averaging": o.averaging = positive(a, Integer.parseInt(v)); break;
            case "--bucket-bytes": o.bucketBytes = Long.parseLong(v); break;
            case "--seed": o.seed = Long.parseLong(v); break;
            case "--split": o.split = Path.of(v); break;
            case "--profile": o.profile = Path.of(v); break;
            case "--profile-steps": o.profileSteps = positive(a, Integer.parseInt(v)); break;
            default: usage("unknown option " + a);
          }
        } catch (NumberFormatException e) {
          usage("not a number after " + a + ": " + v);
        }
      }
      if (o.split == null) {
        usage("dist-speed needs --split DIR (written by export-split)");
      }
      if (o.warmup < 0 || o.bucketBytes < 1) {
        usage("--warmup must be >= 0 and --bucket-bytes >= 1");
      }
      try {
        o.run();
      } catch (Throwable t) {
        // One rank failing must end the job (mpirun stops the others), not leave it waiting.
        System.err.println("LeNetBench dist-speed, rank " + o.rank + ":");
        t.printStackTrace();
        System.exit(1);
      }
      System.exit(0);
    }

    /** The train part of the split as examples (pixels / 255, one-hot labels). */
    private static ExampleSource trainPart(Path split) throws IOException {
      int[] dims = new int[3];
      byte[] px = IdxFile.readUnsignedBytes(split.resolve("train-images-idx3-ubyte"), dims);
      int[] ldims = new int[1];
      byte[] lb = IdxFile.readUnsignedBytes(split.resolve("train-labels-idx1-ubyte"), ldims);
      if (ldims[0] != dims[0]) {
        throw new IOException(split + ": " + dims[0] + " train images but " + ldims[0] + " labels");
      }
      float[] x = new float[px.length];
      for (int i = 0; i < px.length; ++i) {
        x[i] = (px[i] & 0xff) / 255f;
      }
      int[] y = new int[lb.length];
      for (int i = 0; i < lb.length; ++i) {
        y[i] = lb[i] & 0xff;
      }
      return ExampleSource.of(x, new long[] {(long) dims[1] * dims[2]}, y, MnistDataSetIterator.NUM_CLASSES);
    }

    /** fit() until {@code steps} more iterations (the first synchronisation point at or after); the steps done. */
    private long fit(DistributedTrainer t, MultiLayerNetwork net, ShardedDataSetIterator it, long steps) {
      long before = net.getIterationCount();
      t.fit(it, Integer.MAX_VALUE, before + steps);
      return net.getIterationCount() - before;
    }

    private double sumOverRanks(double v) {
      try (Tensor s = Tensor.from(new double[] {v}, 1)) {
        world.allreduce(s, ReduceOp.SUM);
        return s.toDoubleArray()[0];
      }
    }

    void run() throws IOException {
      Ndrt.setConfig("cpu.threads", Integer.toString(threads));
      OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
      world = Communicator.world();
      rank = world.rank();
      size = world.size();
      ExampleSource data = trainPart(split);
      String variant = averaging > 0 ? "avg" + averaging : "gs";
      try (ShardedDataSetIterator it = ShardedDataSetIterator.builder(data).batchSize(batch).rank(rank, size)
               .shuffle(false).build();
           MultiLayerNetwork net = new MultiLayerNetwork(LeNetMnist.lenet(seed, DType.F32))) {
        net.init();
        // What a minibatch of the iterator costs (it is built inside every timed step).
        long n0 = System.nanoTime();
        int probes = Math.min(20, it.stepsPerEpoch());
        for (int i = 0; i < probes; ++i) {
          it.next().close();
        }
        double nextMs = (System.nanoTime() - n0) * 1e-6 / probes;
        it.seek(0, 0);
        DistributedTrainer.Builder b = new DistributedTrainer.Builder(net, world);
        if (averaging > 0) {
          b.parameterAveraging(averaging).saveUpdater(true);
        } else {
          b.gradientSharing().bucketBytes(bucketBytes);
        }
        DistributedTrainer t = b.build();
        if (warmup > 0) {
          fit(t, net, it, warmup);
        }
        for (int r = 0; r < reps; ++r) {
          world.barrier();
          long busy0 = systemBusyNs();
          long cpu0 = os.getProcessCpuTime();
          long t0 = System.nanoTime();
          long done = fit(t, net, it, iters);
          world.barrier();
          double wall = (System.nanoTime() - t0) * 1e-9;
          double cpu = (os.getProcessCpuTime() - cpu0) * 1e-9;
          long busy1 = systemBusyNs();
          double jobCpu = sumOverRanks(cpu); // outside the timed part
          double others = busy0 < 0 || busy1 < 0 ? -1 : Math.max(0, (busy1 - busy0) * 1e-9 - jobCpu) / wall;
          double loss = t.score();
          if (!Double.isFinite(loss)) {
            throw new IllegalStateException("training diverged: loss " + loss + " after run " + r);
          }
          if (rank == 0) {
            System.out.printf(Locale.ROOT,
                "{\"impl\":\"ndrt-java-dist\",\"variant\":\"%s\",\"ranks\":%d,\"threads\":%d,\"batch_per_rank\":%d,"
                    + "\"bucket_bytes\":%d,\"iters\":%d,\"rep\":%d,\"img_s\":%.1f,\"ms_per_iter\":%.3f,\"cpu_util\":%.2f,"
                    + "\"others_busy\":%.2f,\"next_ms\":%.3f,\"loss\":%.4f}%n",
                variant, size, threads, batch, averaging > 0 ? 0 : bucketBytes, done, r,
                (double) done * batch * size / wall, wall * 1e3 / done, jobCpu / wall, others, nextMs, loss);
            System.out.flush();
          }
        }
        if (profile != null) {
          profile(t, net, it, variant);
        }
      }
      world.close();
    }

    private static final Pattern EVENT = Pattern.compile(
        "\\{\"name\":\"([^\"]*)\",\"cat\":\"([^\"]*)\",\"ph\":\"X\",\"ts\":([0-9.eE+-]+),\"dur\":([0-9.eE+-]+),\"pid\":[0-9]+,"
            + "\"tid\":([0-9]+),\"args\":\\{\"impl\":\"([^\"]*)\",\"dtype\":\"([^\"]*)\",\"shapes\":\"((?:[^\"\\\\]|\\\\.)*)\"\\}\\}");

    /** One profiler record of a trace: op, backend, start and length (us), thread, shapes. */
    private record Ev(String name, String cat, double ts, double dur, long tid, String impl, String dtype, String shapes) {}

    /** Total length of the union of intervals (sorted copies; [start, end] pairs). */
    private static double union(List<double[]> iv) {
      List<double[]> s = new ArrayList<>(iv);
      s.sort((a, b) -> Double.compare(a[0], b[0]));
      double total = 0;
      double cs = Double.NaN;
      double ce = Double.NaN;
      for (double[] x : s) {
        if (Double.isNaN(cs) || x[0] > ce) {
          if (!Double.isNaN(cs)) {
            total += ce - cs;
          }
          cs = x[0];
          ce = x[1];
        } else {
          ce = Math.max(ce, x[1]);
        }
      }
      return Double.isNaN(cs) ? total : total + ce - cs;
    }

    /**
     * {@code profileSteps} more steps with the profiler on in every rank; each rank turns its trace into
     * part of the job's (pid = rank, named threads) and measures where its time went; rank 0 joins the
     * parts into {@code profile} and prints its profiler summary and every rank's breakdown.
     */
    private void profile(DistributedTrainer t, MultiLayerNetwork net, ShardedDataSetIterator it, String variant)
        throws IOException {
      world.barrier();
      Ndrt.clearProfiler();
      Ndrt.setProfilerEnabled(true);
      long t0 = System.nanoTime();
      long done;
      try {
        done = fit(t, net, it, profileSteps);
      } finally {
        Ndrt.setProfilerEnabled(false);
      }
      long t1 = System.nanoTime();
      String summary = Ndrt.profilerSummary();
      Path raw = Files.createTempFile("ndrt-lenet-dist-trace-", ".json");
      List<Ev> evs = new ArrayList<>();
      try {
        Ndrt.writeProfilerTrace(raw.toString());
        for (String line : Files.readAllLines(raw)) {
          Matcher m = EVENT.matcher(line);
          if (m.find()) {
            evs.add(new Ev(m.group(1), m.group(2), Double.parseDouble(m.group(3)), Double.parseDouble(m.group(4)),
                Long.parseUnsignedLong(m.group(5)), m.group(6), m.group(7), m.group(8)));
          }
        }
      } finally {
        Files.deleteIfExists(raw);
      }
      // The training thread: the one with the most op time (ops run on the calling thread).
      Map<Long, Double> opTime = new HashMap<>();
      Long commTid = null;
      for (Ev e : evs) {
        if (e.cat().equals("mpi")) {
          commTid = commTid == null ? e.tid() : commTid;
        } else {
          opTime.merge(e.tid(), e.dur(), Double::sum);
        }
      }
      long mainTid = opTime.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(-1L);
      // Window: the fit() call (System.nanoTime and the profiler's steady clock are both CLOCK_MONOTONIC
      // on Linux); the events' own extent if they do not fall inside it.
      double w0 = t0 / 1e3;
      double w1 = t1 / 1e3;
      double e0 = evs.stream().mapToDouble(Ev::ts).min().orElse(w0);
      double e1 = evs.stream().mapToDouble(e -> e.ts() + e.dur()).max().orElse(w1);
      if (e0 < w0 - 1e3 || e1 > w1 + 1e3) {
        w0 = e0;
        w1 = e1;
      }
      List<double[]> compute = new ArrayList<>();
      List<double[]> comm = new ArrayList<>();
      List<double[]> both = new ArrayList<>();
      Map<String, double[]> perCollective = new TreeMap<>(); // name + shapes -> calls, total, min
      for (Ev e : evs) {
        double[] iv = {Math.max(w0, e.ts()), Math.min(w1, e.ts() + e.dur())};
        if (iv[1] <= iv[0]) {
          continue;
        }
        if (e.cat().equals("mpi")) {
          comm.add(iv);
          String key = e.name() + " " + e.shapes().replaceAll(" rank [0-9]+/[0-9]+$", "");
          double[] a = perCollective.computeIfAbsent(key, k -> new double[] {0, 0, Double.MAX_VALUE});
          a[0] += 1;
          a[1] += e.dur();
          a[2] = Math.min(a[2], e.dur());
        } else if (e.tid() == mainTid) {
          compute.add(iv);
        } else {
          continue;
        }
        both.add(iv);
      }
      double wall = w1 - w0;
      double cu = union(compute);
      double mu = union(comm);
      double all = union(both);
      double overlapped = cu + mu - all; // |compute and comm|
      double exposed = mu - overlapped;
      double other = wall - all;
      // Every rank's numbers to rank 0 (ms per step): wall, compute, comm, overlapped, exposed, other.
      double[] mine = {wall, cu, mu, overlapped, exposed, other};
      double[] every;
      try (Tensor in = Tensor.from(mine, mine.length); Tensor out = Tensor.zeros(DType.F64, (long) mine.length * size)) {
        world.allgather(in, out);
        every = out.toDoubleArray();
      }
      // This rank's part of the job's trace: pid = rank; threads renumbered so they read alike on
      // every rank: 1 training, 2 communicator, 3.. others.
      Map<Long, Integer> tids = new HashMap<>();
      tids.put(mainTid, 1);
      if (commTid != null) {
        tids.putIfAbsent(commTid, 2);
      }
      for (Ev e : evs) {
        tids.putIfAbsent(e.tid(), tids.size() + 1);
      }
      Path part = Path.of(profile + ".rank" + rank);
      StringBuilder sb = new StringBuilder();
      sb.append(String.format(Locale.ROOT, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"rank %d\"}}",
          rank, rank));
      for (Map.Entry<Long, Integer> e : tids.entrySet()) {
        String what = e.getKey() == mainTid ? "training thread" : e.getKey().equals(commTid) ? "communicator thread" : "other";
        sb.append(String.format(Locale.ROOT, ",%n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
            + "\"args\":{\"name\":\"%s\"}}", rank, e.getValue(), what));
      }
      for (Ev e : evs) {
        sb.append(String.format(Locale.ROOT, ",%n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,"
            + "\"pid\":%d,\"tid\":%d,\"args\":{\"impl\":\"%s\",\"dtype\":\"%s\",\"shapes\":\"%s\"}}", e.name(), e.cat(),
            e.ts(), e.dur(), rank, tids.get(e.tid()), e.impl(), e.dtype(), e.shapes()));
      }
      Files.writeString(part, sb.toString());
      world.barrier();
      if (rank != 0) {
        return;
      }
      StringBuilder job = new StringBuilder("{\"traceEvents\":[\n");
      int joined = 0;
      for (int r = 0; r < size; ++r) {
        Path p = Path.of(profile + ".rank" + r);
        if (Files.isRegularFile(p)) {
          job.append(joined++ > 0 ? ",\n" : "").append(Files.readString(p));
          Files.delete(p);
        }
      }
      job.append("\n],\"displayTimeUnit\":\"ms\"}\n");
      Files.writeString(profile, job.toString());
      System.err.printf(Locale.ROOT, "profile: %d steps of %s, %d ranks x %d examples, %d thread(s) per rank; rank 0's"
          + " profiler summary:%n%s%n", done, variant, size, batch, threads, summary);
      System.err.printf(Locale.ROOT, "where a step's time goes (ms per step; comm = collectives on the communicator's"
          + " thread, overlapped = while the training thread ran an op, exposed = while it ran none):%n");
      System.err.printf(Locale.ROOT, "%4s %8s %9s %8s %11s %8s %8s%n", "rank", "wall", "compute", "comm", "overlapped",
          "exposed", "other");
      for (int r = 0; r < size; ++r) {
        double[] v = Arrays.copyOfRange(every, 6 * r, 6 * r + 6);
        System.err.printf(Locale.ROOT, "%4d %8.2f %9.2f %8.2f %11.2f %8.2f %8.2f%n", r, v[0] / 1e3 / done,
            v[1] / 1e3 / done, v[2] / 1e3 / done, v[3] / 1e3 / done, v[4] / 1e3 / done, v[5] / 1e3 / done);
      }
      System.err.printf(Locale.ROOT, "rank 0's collectives (mean vs fastest: the fastest is near the transfer itself,"
          + " the rest mostly waiting for the other ranks):%n");
      for (Map.Entry<String, double[]> c : perCollective.entrySet()) {
        double[] a = c.getValue();
        System.err.printf(Locale.ROOT, "  %-70s %4.0f calls, mean %8.1f us, fastest %8.1f us%n", c.getKey(), a[0],
            a[1] / a[0], a[2]);
      }
      System.err.printf(Locale.ROOT, "trace of %d rank(s) -> %s%n", joined, profile);
    }
  }

  /**
   * Busy cpu time of the whole machine so far (user, nice, system, irq, softirq, steal from the first
   * line of /proc/stat, at the usual 100 ticks per second), in ns; -1 where it cannot be read.
   */
  private static long systemBusyNs() {
    try {
      String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      long ticks = 0;
      for (int i : new int[] {1, 2, 3, 6, 7, 8}) {
        ticks += Long.parseLong(f[i]);
      }
      return ticks * 10_000_000L;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** Threads of this process (JVM and native pools), or -1 where /proc is not there. */
  static int osThreads() {
    String[] tasks = new File("/proc/self/task").list();
    return tasks == null ? -1 : tasks.length;
  }

  // ------------------------------------------------------------------------------- export-split

  static void exportSplit(Path out, Path data, long seed) throws IOException {
    Files.createDirectories(out);
    for (String part : new String[] {"train", "test"}) {
      MnistDataSetIterator it = mnist(data, seed).train(part.equals("train")).shuffle(false).batchSize(1000).build();
      int n = (int) it.numExamples();
      int size = it.featureSize();
      byte[] pixels = new byte[n * size];
      byte[] labels = new byte[n];
      int row = 0;
      while (it.hasNext()) {
        try (DataSet ds = it.next()) {
          float[] f = ds.features().toFloatArray();
          float[] y = ds.labels().toFloatArray();
          int k = ds.numExamples();
          for (int j = 0; j < k * size; ++j) {
            pixels[row * size + j] = toByte(f[j]);
          }
          for (int r = 0; r < k; ++r) {
            labels[row + r] = (byte) oneHotIndex(y, r, MnistDataSetIterator.NUM_CLASSES);
          }
          row += k;
        }
      }
      if (row != n) {
        throw new IllegalStateException(part + ": the iterator gave " + row + " examples, expected " + n);
      }
      int[] dims = size == 28 * 28 ? new int[] {n, 28, 28} : new int[] {n, size};
      IdxFile.write(out.resolve(part + "-images-idx" + (dims.length) + "-ubyte"),
          new IdxFile.Array(IdxFile.UBYTE, dims, pixels));
      IdxFile.write(out.resolve(part + "-labels-idx1-ubyte"), new IdxFile.Array(IdxFile.UBYTE, new int[] {n}, labels));
      int[] counts = new int[MnistDataSetIterator.NUM_CLASSES];
      for (byte l : labels) {
        counts[l]++;
      }
      System.out.printf(Locale.ROOT, "%s: %d images %s, per class %s -> %s%n", part, n, Arrays.toString(dims),
          Arrays.toString(counts), out.toAbsolutePath());
    }
  }

  /** The pixel byte behind an iterator value (pixel / 255f); refuses a value that is not one exactly. */
  private static byte toByte(float v) {
    int b = Math.round(v * 255f);
    if (b < 0 || b > 255 || b / 255f != v) {
      throw new IllegalStateException("feature " + v + " is not an 8-bit pixel / 255");
    }
    return (byte) b;
  }

  private static int oneHotIndex(float[] y, int row, int classes) {
    int found = -1;
    for (int c = 0; c < classes; ++c) {
      float v = y[row * classes + c];
      if (v == 1f && found < 0) {
        found = c;
      } else if (v != 0f) {
        throw new IllegalStateException("label row " + row + " is not one-hot");
      }
    }
    if (found < 0) {
      throw new IllegalStateException("label row " + row + " is not one-hot");
    }
    return found;
  }

  private static void usage(String error) {
    if (error != null) {
      System.err.println("LeNetBench: " + error);
    }
    System.err.println("usage: LeNetBench speed|infer [--threads T] [--iters 100] [--warmup 20] [--reps 5]\n"
        + "                        [--max-seconds 0] [--batch 64 (infer: 256)] [--seed 123] [--data DIR] [--profile 0|1]\n"
        + "       LeNetBench sgemm [--threads T] [--size 1024] [--reps 10] [--warmup 2] [--seed 123]\n"
        + "       LeNetBench export-split OUT_DIR [--data DIR] [--seed 123]\n"
        + "       mpirun -np N ... LeNetBench dist-speed --split DIR [--threads 1] [--iters 100] [--warmup 20] [--reps 5]\n"
        + "                        [--batch 64 (per rank)] [--averaging k] [--bucket-bytes B] [--seed 123]\n"
        + "                        [--profile FILE] [--profile-steps 10]");
    System.exit(error == null ? 0 : 2);
  }
}
