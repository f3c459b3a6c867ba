package org.ndrt.bench;

import com.sun.management.OperatingSystemMXBean;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.ndrt.DType;
import org.ndrt.Ndrt;
import org.ndrt.capi.NdrtC;
import org.ndrt.data.DataSet;
import org.ndrt.data.IdxFile;
import org.ndrt.data.MnistDataSetIterator;
import org.ndrt.examples.LeNetMnist;
import org.ndrt.nn.MultiLayerNetwork;

/**
 * LeNet training speed from Java, and the MNIST split written out for a peer (a benchmark, not a
 * test: tests/bench/run_lenet.sh runs it beside tests/bench/lenet_torch.py).
 *
 * <pre>
 * java -cp ndrt.jar:ndrt-bench.jar org.ndrt.bench.LeNetBench speed [--threads T] [--iters 100]
 *      [--warmup 20] [--reps 5] [--max-seconds 0] [--batch 64] [--seed 123] [--data DIR] [--profile 0|1]
 * java -cp ndrt.jar:ndrt-bench.jar org.ndrt.bench.LeNetBench export-split OUT_DIR [--data DIR] [--seed 123]
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
 * <p>{@code export-split}: writes the train and test parts of the iterator's split (seed, 80/20), each
 * in split order (no per-epoch shuffle), as unsigned-byte IDX files {@code train-images-idx3-ubyte},
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
    } else if (!mode.equals("speed")) {
      usage("unknown mode " + mode);
    }
    Speed o = new Speed();
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

  /** The speed mode's options (defaults as in the usage line) and its run. */
  static final class Speed {
    int threads;  // 0: leave cpu.threads as it is
    int iters = 100;
    int warmup = 20;
    int reps = 5;
    int batch = 64;
    double maxSeconds;  // 0: no cap
    long seed = 123;
    Path data;
    boolean profile;

    private List<DataSet> batches;
    private int next;

    /** Up to {@code n} steps, fewer when {@code capNs} (> 0) has passed since {@code t0}; the steps done. */
    private int steps(MultiLayerNetwork net, int n, long t0, long capNs) {
      int done = 0;
      while (done < n) {
        net.fit(batches.get(next));  // synchronous: the step reads its loss back
        next = (next + 1) % batches.size();
        ++done;
        if (capNs > 0 && System.nanoTime() - t0 > capNs) {
          break;
        }
      }
      return done;
    }

    void run() throws IOException {
      if (threads > 0) {
        Ndrt.setConfig("cpu.threads", Integer.toString(threads));
      }
      int t = Integer.parseInt(Ndrt.config("cpu.threads"));
      long capNs = (long) (maxSeconds * 1e9);
      OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
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
            long busy0 = systemBusyNs();
            long cpu0 = os.getProcessCpuTime();
            long t0 = System.nanoTime();
            int done = steps(net, iters, t0, capNs);
            double wall = (System.nanoTime() - t0) * 1e-9;
            double cpu = (os.getProcessCpuTime() - cpu0) * 1e-9;
            long busy1 = systemBusyNs();
            double others = busy0 < 0 || busy1 < 0 ? -1 : Math.max(0, (busy1 - busy0) * 1e-9 - cpu) / wall;
            double loss = net.score();
            if (!Double.isFinite(loss)) {
              throw new IllegalStateException("training diverged: loss " + loss + " after run " + r);
            }
            System.out.printf(Locale.ROOT,
                "{\"impl\":\"ndrt-java\",\"variant\":\"f32\",\"threads\":%d,\"batch\":%d,\"iters\":%d,\"rep\":%d,"
                    + "\"img_s\":%.1f,\"ms_per_iter\":%.3f,\"cpu_util\":%.2f,\"others_busy\":%.2f,\"loss\":%.4f,"
                    + "\"os_threads\":%d}%n",
                t, batch, done, r, (double) done * batch / wall, wall * 1e3 / done, cpu / wall, others, loss,
                osThreads());
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
  private static int osThreads() {
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
    System.err.println("usage: LeNetBench speed [--threads T] [--iters 100] [--warmup 20] [--reps 5]\n"
        + "                        [--max-seconds 0] [--batch 64] [--seed 123] [--data DIR] [--profile 0|1]\n"
        + "       LeNetBench export-split OUT_DIR [--data DIR] [--seed 123]");
    System.exit(error == null ? 0 : 2);
  }
}
