package org.ndrt.distributed;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.ndrt.DType;
import org.ndrt.InvalidArgumentException;
import org.ndrt.Ndrt;
import org.ndrt.NotSupportedException;
import org.ndrt.Tensor;
import org.ndrt.data.ExampleSource;
import org.ndrt.data.ShardedDataSetIterator;
import org.ndrt.eval.Evaluation;
import org.ndrt.nn.MultiLayerNetwork;
import org.ndrt.nn.RandomStreams;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.MultiLayerConfiguration;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.WeightInit;
import org.ndrt.nn.conf.layers.ConvolutionLayer;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.DropoutLayer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.conf.layers.SubsamplingLayer;
import org.ndrt.nn.listeners.TrainingListener;
import org.ndrt.nn.updater.Nesterovs;
import org.ndrt.nn.updater.Sgd;
import org.ndrt.nn.updater.Updater;

/**
 * Multi-process checks of org.ndrt.distributed, run on every rank of one job:
 *
 * <pre>
 * packaging/mpirun.sh -np 2 java -Dndrt.library.path=build -cp ndrt.jar:ndrt-tests.jar \
 *     org.ndrt.distributed.DistributedCheck equality
 * </pre>
 *
 * Checks: {@code api} (Communicator: every collective, split, bad input), {@code equality}
 * (gradient sharing with 2 x 32 equals 1 process x 64 over 50 LeNet steps; bucket sizes; summed
 * evaluation), {@code averaging_sgd} (averaging every step with SGD equals the global batch),
 * {@code averaging_nesterovs} (every 3 steps with Nesterovs and averaged updater state equals
 * replicas averaged by hand, bit for bit), {@code jvm_signals} (the JVM's own SIGSEGV use survives MPI), and
 * {@code checkpoint} (stopped and resumed runs equal uninterrupted ones), {@code graph} (a
 * ComputationGraph: {@link DistributedGraphCheck}). Each named check that
 * fails on any rank counts once; rank 0 prints "distributed CHECK: N passed, M failed", and every
 * rank exits 1 when M > 0 (an exception exits at once, which ends the job).
 *
 * <p>For java/tests/kill_restart.sh: {@code train} (one training job with checkpoints, optionally
 * with a rank that sends itself SIGKILL or SIGSTOP; rank 0 writes the final state to a file) and
 * {@code compare A B} (no MPI: bit-identical, or within given tolerances).
 */
public final class DistributedCheck {
  /**
   * Gradient sharing and averaging against one process on the global batch. The mean of two
   * 32-example gradient means is not the 64-example mean bit for bit (f32 sums in another order;
   * and the conv kernels, chosen by timing on the first call of each shape, differ from process to
   * process and between batch sizes). Over 50 LeNet steps such last-bit differences stay near 1e-7
   * until a max-pool window or a ReLU whose inputs nearly tie goes the other way in one run: then
   * some weights move apart by a step's worth, and training goes on from two slightly different
   * points (the first flip came at step 13 in one run: 1e-7 before, 3e-5 after, a handful of conv1
   * weights). Measured (|a - b| / |b| Euclidean, max |a - b| / max |b|): gradient sharing over 14 runs
   * 4.7e-7..3.0e-5 and 5.0e-6..4.2e-4; averaging with SGD over 7 runs 3.1e-7..1.6e-4 and
   * 2.8e-6..1.7e-3. Real errors are far larger: each rank stepping on its own 32 examples gives
   * 1.1e-2..1.4e-2 and 5.9e-2..8.2e-2 after 50 steps, a sum instead of a mean (lr doubled)
   * 1.3e-2..3.0e-2 and 1.2e-1..1.3e-1. The bounds sit between: 1e-3 on the Euclidean distance (6x
   * the largest rounding seen, 11x below the smallest error), 2e-2 on the max (12x and 3x: a
   * backstop, as flips move single weights most).
   */
  static final double GLOBAL_BATCH_L2_TOLERANCE = 1e-3;

  static final double GLOBAL_BATCH_MAX_TOLERANCE = 2e-2;

  private static Communicator world;
  private static int rank;
  private static int size;
  private static final List<String> names = new ArrayList<>();
  private static final List<Boolean> failed = new ArrayList<>();

  private DistributedCheck() {}

  public static void main(String[] args) {
    List<String> checks = List.of("api", "equality", "averaging_sgd", "averaging_nesterovs", "jvm_signals", "checkpoint", "graph");
    if (args.length >= 1 && args[0].equals("compare")) {
      System.exit(compare(args)); // no MPI: two files of `train --out`
      return;
    }
    TrainJob job = null;
    if (args.length >= 1 && args[0].equals("train")) {
      job = TrainJob.parse(args);
    } else if (args.length != 1 || !checks.contains(args[0])) {
      System.err.println("usage: DistributedCheck " + String.join("|", checks));
      System.err.println("       DistributedCheck train " + TrainJob.USAGE);
      System.err.println("       DistributedCheck compare " + COMPARE_USAGE);
      System.exit(2);
    }
    String check = args[0];
    if (System.getenv("NDRT_CPU_THREADS") == null) {
      Ndrt.setConfig("cpu.threads", "1"); // ranks x threads within the cores
    }
    int failures;
    try {
      world = Communicator.world();
      rank = world.rank();
      size = world.size();
      if (size < 2) {
        throw new IllegalStateException("run under mpirun with at least 2 processes (got " + size + ")");
      }
      switch (check) {
        case "api": api(); break;
        case "equality": equality(); break;
        case "averaging_sgd": averagingSgd(); break;
        case "averaging_nesterovs": averagingNesterovs(); break;
        case "jvm_signals": jvmSignals(); break;
        case "checkpoint": checkpoint(); break;
        case "graph": DistributedGraphCheck.graph(world); break;
        case "train": train(job); break;
        default: throw new AssertionError(check);
      }
      failures = tally(check);
      world.close();
    } catch (Throwable t) {
      System.err.println("rank " + rank + ": distributed " + check + " stopped by an exception:");
      t.printStackTrace();
      System.exit(1);
      return;
    }
    System.exit(failures > 0 ? 1 : 0);
  }

  /** Records one named check on this rank; details of a failure go to stderr at once. */
  static void check(String name, boolean ok, String detail) {
    names.add(name);
    failed.add(!ok);
    if (!ok) {
      System.err.println("rank " + rank + ": FAILED " + name + (detail.isEmpty() ? "" : ": " + detail));
    }
  }

  static void check(String name, boolean ok) {
    check(name, ok, "");
  }

  /** Rank 0's line per check and the summary; a check failed on any rank fails. */
  static int tally(String check) {
    int[] f = new int[names.size()];
    for (int i = 0; i < f.length; ++i) {
      f[i] = failed.get(i) ? 1 : 0;
    }
    try (Tensor t = Tensor.from(f, f.length)) {
      world.allreduce(t, ReduceOp.MAX);
      f = t.toIntArray();
    }
    int bad = Arrays.stream(f).sum();
    if (rank == 0) {
      for (int i = 0; i < f.length; ++i) {
        System.out.println((f[i] == 0 ? "  ok      " : "  FAILED  ") + names.get(i));
      }
      System.out.printf(Locale.ROOT, "distributed %s: %d passed, %d failed%n", check, f.length - bad, bad);
    }
    return bad;
  }

  static void info(String fmt, Object... args) {
    if (rank == 0) {
      System.out.printf(Locale.ROOT, fmt + "%n", args);
    }
  }

  // --------------------------------------------------------------------------------- data, nets

  /**
   * {@code n} MNIST-shaped digits (28x28, values in [0, 1]): class i % 10 is a bright 7x7 square at
   * a place of its own (jittered by a pixel), over uniform noise, so there are no exact ties.
   */
  static ExampleSource digits(int n, long seed) {
    Random r = new Random(seed);
    float[] x = new float[n * 784];
    int[] y = new int[n];
    for (int i = 0; i < n; ++i) {
      int c = i % 10;
      y[i] = c;
      int cx = 4 + (c % 5) * 5 + r.nextInt(3) - 1;
      int cy = 7 + (c / 5) * 13 + r.nextInt(3) - 1;
      for (int py = 0; py < 28; ++py) {
        for (int px = 0; px < 28; ++px) {
          float v = 0.2f * r.nextFloat();
          if (Math.abs(px - cx) <= 3 && Math.abs(py - cy) <= 3) {
            v += 0.5f + 0.3f * r.nextFloat();
          }
          x[i * 784 + py * 28 + px] = v;
        }
      }
    }
    return ExampleSource.of(x, new long[] {784}, y, 10);
  }

  /** Deeplearning4j's LeNet (as org.ndrt.examples.LeNetMnist) with the given updater. */
  static MultiLayerConfiguration lenet(long seed, Updater updater) {
    return new NeuralNetConfiguration.Builder()
        .seed(seed).l2(0.0005).weightInit(WeightInit.XAVIER).updater(updater)
        .list()
        .layer(new ConvolutionLayer.Builder(5, 5).nIn(1).stride(1, 1).nOut(20).activation(Activation.IDENTITY).build())
        .layer(new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).stride(2, 2).build())
        .layer(new ConvolutionLayer.Builder(5, 5).stride(1, 1).nOut(50).activation(Activation.IDENTITY).build())
        .layer(new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).stride(2, 2).build())
        .layer(new DenseLayer.Builder().activation(Activation.RELU).nOut(500).build())
        .layer(new OutputLayer.Builder(LossFunction.NEGATIVELOGLIKELIHOOD).nOut(10).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.convolutionalFlat(28, 28, 1))
        .build();
  }

  /** 784 -> dense 64 relu -> dropout 0.3 -> softmax 10, Nesterovs: small, with updater state and random draws. */
  static MultiLayerConfiguration mlp(long seed) {
    return mlp(seed, DType.F32);
  }

  static MultiLayerConfiguration mlp(long seed, DType dtype) {
    return new NeuralNetConfiguration.Builder()
        .seed(seed).l2(1e-4).weightInit(WeightInit.XAVIER).updater(new Nesterovs(0.05, 0.9)).dataType(dtype)
        .list()
        .layer(new DenseLayer.Builder().activation(Activation.RELU).nOut(64).build())
        .layer(new DropoutLayer.Builder(0.3).build())
        .layer(new OutputLayer.Builder(LossFunction.NEGATIVELOGLIKELIHOOD).nOut(10).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.feedForward(784))
        .build();
  }

  static MultiLayerNetwork network(MultiLayerConfiguration conf) {
    MultiLayerNetwork net = new MultiLayerNetwork(conf);
    net.init();
    return net;
  }

  static ShardedDataSetIterator shard(ExampleSource src, int batch, long seed) {
    return new ShardedDataSetIterator(src, batch, rank, size, seed);
  }

  /** max |a - b| / max |b|. */
  static double relDiff(float[] a, float[] b) {
    if (a.length != b.length) {
      return Double.POSITIVE_INFINITY;
    }
    double d = 0;
    double m = 0;
    for (int i = 0; i < a.length; ++i) {
      d = Math.max(d, Math.abs((double) a[i] - b[i]));
      m = Math.max(m, Math.abs(b[i]));
    }
    return m == 0 ? d : d / m;
  }

  /** |a - b| / |b| (Euclidean norms). */
  static double relL2(float[] a, float[] b) {
    double d = 0;
    double n = 0;
    for (int i = 0; i < a.length; ++i) {
      d += ((double) a[i] - b[i]) * ((double) a[i] - b[i]);
      n += (double) b[i] * b[i];
    }
    return Math.sqrt(d / n);
  }

  /** Whether every rank holds these exact values (bit for bit). */
  static boolean sameOnAllRanks(float[] v) {
    try (Tensor hi = Tensor.from(v, v.length); Tensor lo = Tensor.from(v, v.length)) {
      world.allreduce(hi, ReduceOp.MAX);
      world.allreduce(lo, ReduceOp.MIN);
      return Arrays.equals(hi.toFloatArray(), v) && Arrays.equals(lo.toFloatArray(), v);
    }
  }

  interface Body {
    void run() throws Exception;
  }

  /** Whether {@code body} throws {@code type}. */
  static boolean throwsType(Class<? extends Throwable> type, Body body) {
    try {
      body.run();
      return false;
    } catch (Throwable t) {
      if (!type.isInstance(t)) {
        System.err.println("rank " + rank + ": expected " + type.getSimpleName() + ", got " + t);
      }
      return type.isInstance(t);
    }
  }

  // ------------------------------------------------------------------------------------ api

  static void api() {
    int s = size;
    check("rank and size", rank >= 0 && rank < s && world.localRank() >= 0 && world.localRank() < s,
        world.toString());
    try (Tensor t = Tensor.from(new float[] {rank + 1, 2 * (rank + 1)}, 2)) {
      world.allreduce(t, ReduceOp.SUM);
      float sum = s * (s + 1) / 2f;
      check("allreduce SUM f32", Arrays.equals(t.toFloatArray(), new float[] {sum, 2 * sum}), Arrays.toString(t.toFloatArray()));
    }
    for (ReduceOp op : new ReduceOp[] {ReduceOp.MEAN, ReduceOp.MAX, ReduceOp.MIN}) {
      try (Tensor t = Tensor.from(new float[] {rank + 1}, 1)) {
        world.allreduce(t, op);
        float want = op == ReduceOp.MEAN ? (s + 1) / 2f : op == ReduceOp.MAX ? s : 1;
        check("allreduce " + op + " f32", t.toFloatArray()[0] == want, t.toFloatArray()[0] + " != " + want);
      }
    }
    try (Tensor t = Tensor.from(new long[] {rank + 1L << 40}, 1)) {
      world.allreduce(t, ReduceOp.SUM);
      check("allreduce SUM i64", t.toLongArray()[0] == (long) s * (s + 1) / 2 << 40);
    }
    try (Tensor t = Tensor.from(new long[] {rank}, 1)) {
      check("allreduce MEAN on i64 is not supported", throwsType(NotSupportedException.class, () -> world.allreduce(t, ReduceOp.MEAN)));
    }
    try (Tensor t = Tensor.from(new float[] {rank * 10, rank * 10 + 1}, 2)) {
      world.broadcast(t, s - 1);
      check("broadcast from the last rank", Arrays.equals(t.toFloatArray(), new float[] {(s - 1) * 10, (s - 1) * 10 + 1}));
    }
    try (Tensor in = Tensor.from(new float[] {rank, rank}, 2); Tensor out = Tensor.zeros(DType.F32, 2L * s)) {
      world.allgather(in, out);
      float[] want = new float[2 * s];
      for (int r = 0; r < s; ++r) {
        want[2 * r] = r;
        want[2 * r + 1] = r;
      }
      check("allgather", Arrays.equals(out.toFloatArray(), want), Arrays.toString(out.toFloatArray()));
    }
    try (Tensor in = Tensor.full(rank + 1, DType.F32, 2L * s); Tensor out = Tensor.zeros(DType.F32, 2)) {
      world.reduceScatter(in, out, ReduceOp.SUM);
      float sum = s * (s + 1) / 2f;
      check("reduceScatter SUM", Arrays.equals(out.toFloatArray(), new float[] {sum, sum}), Arrays.toString(out.toFloatArray()));
    }
    world.barrier();
    check("barrier", true);
    try (Tensor a = Tensor.from(new float[] {rank}, 1); Tensor b = Tensor.from(new float[] {rank, 2 * rank, 3 * rank}, 3)) {
      Communicator.Pending p = world.allreduceAsync(ReduceOp.SUM, a, b);
      p.await();
      p.await(); // again: returns at once
      boolean done = p.isDone();
      p.close();
      p.close();
      float sum = s * (s - 1) / 2f;
      check("allreduceAsync of two tensors", done && a.toFloatArray()[0] == sum
          && Arrays.equals(b.toFloatArray(), new float[] {sum, 2 * sum, 3 * sum}), Arrays.toString(b.toFloatArray()));
    }
    try (Tensor a = Tensor.from(new float[] {rank + 1}, 1)) {
      Communicator.Pending p = world.allreduceAsync(ReduceOp.MAX, a);
      p.close(); // waits
      check("allreduceAsync: close() waits", a.toFloatArray()[0] == s);
    }
    try (Communicator half = world.split(rank % 2, -rank)) {
      int members = (s + 1 - rank % 2) / 2;
      boolean ok = half != null && half.size() == members;
      if (half != null) {
        try (Tensor t = Tensor.from(new float[] {1}, 1)) {
          half.allreduce(t, ReduceOp.SUM);
          ok &= t.toFloatArray()[0] == members;
        }
        // key -rank: ranked in reverse order of their world rank
        ok &= half.rank() == members - 1 - rank / 2;
      }
      check("split by parity, ranked by key", ok, String.valueOf(half));
    }
    Communicator alone = world.split(rank == 0 ? 0 : -1, 0);
    check("split with color < 0 gives null", rank == 0 ? alone != null && alone.size() == 1 : alone == null);
    if (alone != null) {
      alone.close();
    }
    try (Tensor t = Tensor.zeros(DType.F32, 1)) {
      check("allreduce(null) is refused", throwsType(IllegalArgumentException.class, () -> world.allreduce(null, ReduceOp.SUM)));
      check("a null reduce op is refused", throwsType(IllegalArgumentException.class, () -> world.allreduce(t, null)));
      check("broadcast from a root outside the group is refused",
          throwsType(IllegalArgumentException.class, () -> world.broadcast(t, s))
          && throwsType(IllegalArgumentException.class, () -> world.broadcast(t, -1)));
      check("allreduceAsync of no tensor is refused", throwsType(IllegalArgumentException.class, () -> world.allreduceAsync(ReduceOp.SUM)));
    }
    // Shapes that differ between ranks: the runtime's dist.verify names them, on every rank.
    try (Tensor t = Tensor.zeros(DType.F32, rank + 1)) {
      check("shapes differing between ranks fail on every rank",
          throwsType(InvalidArgumentException.class, () -> world.allreduce(t, ReduceOp.SUM)));
    }
    try (Tensor t = Tensor.zeros(DType.F32, rank + 1)) {
      check("... and in an asynchronous allreduce, at the latest in await()",
          throwsType(InvalidArgumentException.class, () -> {
            try (Communicator.Pending p = world.allreduceAsync(ReduceOp.SUM, t)) {
              p.await();
            }
          }));
    }
    try (Tensor t = Tensor.from(new float[] {1}, 1)) {
      world.allreduce(t, ReduceOp.SUM);
      check("the communicator works after a refused collective", t.toFloatArray()[0] == s);
    }
    Communicator other = Communicator.world();
    other.close();
    other.close();
    check("a closed communicator refuses calls", throwsType(IllegalStateException.class, other::barrier));
    trainerArguments();
  }

  /** DistributedTrainer's argument checks: local, so every rank throws alike before any collective. */
  static void trainerArguments() {
    ExampleSource data = digits(200, 4);
    try (MultiLayerNetwork net = network(mlp(5)); MultiLayerNetwork bf16 = network(mlp(5, DType.BF16));
         MultiLayerNetwork bare = new MultiLayerNetwork(mlp(5))) {
      check("Builder: null network or communicator",
          throwsType(IllegalArgumentException.class, () -> new DistributedTrainer.Builder(null, world))
          && throwsType(IllegalArgumentException.class, () -> new DistributedTrainer.Builder(net, null)));
      check("Builder: a network without init()", throwsType(IllegalStateException.class, () -> new DistributedTrainer.Builder(bare, world)));
      check("Builder: mixed precision is refused",
          throwsType(IllegalArgumentException.class, () -> new DistributedTrainer.Builder(bf16, world)));
      DistributedTrainer.Builder b = new DistributedTrainer.Builder(net, world);
      check("Builder: parameterAveraging(0), bucketBytes(0), checkpointEvery(0), null directories",
          throwsType(IllegalArgumentException.class, () -> b.parameterAveraging(0))
          && throwsType(IllegalArgumentException.class, () -> b.bucketBytes(0))
          && throwsType(IllegalArgumentException.class, () -> b.checkpointEvery(0))
          && throwsType(IllegalArgumentException.class, () -> b.checkpointDir(null))
          && throwsType(IllegalArgumentException.class, () -> b.resumeFrom(null))
          && throwsType(IllegalArgumentException.class, () -> b.listeners((TrainingListener) null)));
      check("Builder: checkpointEvery without a directory",
          throwsType(IllegalArgumentException.class, () -> new DistributedTrainer.Builder(net, world).checkpointEvery(5).build()));
      DistributedTrainer t = new DistributedTrainer.Builder(net, world).build();
      check("fit: null iterator, negative epochs",
          throwsType(IllegalArgumentException.class, () -> t.fit(null, 1))
          && throwsType(IllegalArgumentException.class, () -> t.fit(shard(data, 8, 1), -1)));
      check("fit: another rank's shard",
          throwsType(IllegalArgumentException.class, () -> t.fit(new ShardedDataSetIterator(data, 8, (rank + 1) % size, size, 1), 1)));
      check("fit: a shard that keeps the last partial batch",
          throwsType(IllegalArgumentException.class, () -> t.fit(
              ShardedDataSetIterator.builder(data).batchSize(8).rank(rank, size).dropLast(false).build(), 1)));
      check("evaluate: null iterator", throwsType(IllegalArgumentException.class, () -> t.evaluate(null)));
      check("nothing was trained", net.getIterationCount() == 0);
    }
  }

  // ------------------------------------------------------------------------------- equality

  /**
   * Result of one training run: parameters, the score the trainer reports for the last step (the
   * network's own for one process), this process's own score of its last minibatch, iterations.
   */
  record Run(float[] params, float[] updater, double score, double localScore, long iterations) {}

  static Run ddp(MultiLayerConfiguration conf, ExampleSource data, int batch, int epochs, long bucketBytes) {
    try (MultiLayerNetwork net = network(conf)) {
      DistributedTrainer t = new DistributedTrainer.Builder(net, world).gradientSharing().bucketBytes(bucketBytes).build();
      t.fit(shard(data, batch, 99), epochs);
      return new Run(net.params().toFloatArray(), net.updaterState().toFloatArray(), t.score(), net.score(),
          net.getIterationCount());
    }
  }

  /** One process on the global batch: the same permutation cut into minibatches of size * batch. */
  static Run single(MultiLayerConfiguration conf, ExampleSource data, int globalBatch, int epochs) {
    try (MultiLayerNetwork net = network(conf);
         ShardedDataSetIterator it = new ShardedDataSetIterator(data, globalBatch, 0, 1, 99)) {
      net.fit(it, epochs);
      return new Run(net.params().toFloatArray(), net.updaterState().toFloatArray(), net.score(), net.score(),
          net.getIterationCount());
    }
  }

  static void equality() {
    ExampleSource train = digits(700, 1); // 10 global batches of 64 per epoch; 60 examples dropped
    int epochs = 5; // 50 steps
    MultiLayerConfiguration conf = lenet(7, new Nesterovs(0.01, 0.9));
    // A first run in the process also picks the conv2d implementations by timing (kernels/cpu/
    // conv_dnnl.cpp); under load its results were seen to differ from later runs' by ~1e-7 relative,
    // whatever the bucket size, so the bucket-size comparison below is among later runs.
    ddp(conf, train, 32, 1, DistributedTrainer.DEFAULT_BUCKET_BYTES);
    long t0 = System.nanoTime();
    Run dflt = ddp(conf, train, 32, epochs, DistributedTrainer.DEFAULT_BUCKET_BYTES);
    info("gradient sharing, %d ranks x 32, %d steps: %.1f s", size, dflt.iterations, (System.nanoTime() - t0) / 1e9);
    check("50 steps", dflt.iterations == 50, "iterations " + dflt.iterations);
    check("replicas bit-identical across ranks", sameOnAllRanks(dflt.params));
    Run perLayer = ddp(conf, train, 32, epochs, 1); // a bucket per layer with parameters
    Run oneBucket = ddp(conf, train, 32, epochs, Long.MAX_VALUE);
    check("bucket sizes (1 B, 1 MiB, unbounded) give the same parameters bit for bit",
        Arrays.equals(dflt.params, perLayer.params) && Arrays.equals(dflt.params, oneBucket.params),
        "rel diff " + relDiff(perLayer.params, dflt.params) + ", " + relDiff(oneBucket.params, dflt.params));
    t0 = System.nanoTime();
    Run ref = single(conf, train, 32 * size, epochs);
    info("one process x %d, %d steps: %.1f s", 32 * size, ref.iterations, (System.nanoTime() - t0) / 1e9);
    closeToGlobalBatch("2 x 32 with gradient sharing = 1 x 64", dflt.params, ref.params);
    // The ranks' own last-minibatch scores travel as f32 in the last gradient bucket: their mean in
    // f32 is what the trainer must report, whatever the kernels computed.
    double mean;
    try (Tensor local = Tensor.from(new float[] {(float) dflt.localScore}, 1)) {
      world.allreduce(local, ReduceOp.MEAN);
      mean = local.item();
    }
    info("last score: mean over ranks %.6f (this rank %.6f), single process on the global batch %.6f", dflt.score,
        dflt.localScore, ref.score);
    check("the reported score is the mean over ranks", Math.abs(dflt.score - mean) <= 1e-6 * Math.abs(mean),
        dflt.score + " vs the ranks' mean " + mean);

    // Evaluation: every rank's part of a test set, confusion matrices summed = the whole set here.
    ExampleSource test = digits(301, 2);
    try (MultiLayerNetwork net = network(conf);
         ShardedDataSetIterator part = ShardedDataSetIterator.builder(test).batchSize(16).rank(rank, size)
             .shuffle(false).dropLast(false).build();
         ShardedDataSetIterator whole = ShardedDataSetIterator.builder(test).batchSize(64).shuffle(false).dropLast(false).build()) {
      net.params().copyFrom(dflt.params);
      DistributedTrainer t = new DistributedTrainer.Builder(net, world).build();
      Evaluation summed = t.evaluate(part);
      Evaluation local = net.evaluate(whole);
      check("evaluate: the ranks' confusion matrices summed = the whole test set's",
          summed.numExamples() == 301 && Arrays.deepEquals(summed.getConfusionMatrix(), local.getConfusionMatrix()),
          summed.numExamples() + " examples, accuracy " + summed.accuracy() + " vs " + local.accuracy());
      info("test accuracy after 50 steps: %.3f", summed.accuracy());
    }
  }

  /**
   * The parameters against the single process's (see the tolerances). The updater state is not
   * compared: near convergence momentum is small and a flip moves it by a large part of itself; the
   * averaged updater state is checked bit for bit by averaging_nesterovs and checkpoint.
   */
  static void closeToGlobalBatch(String what, float[] p, float[] refP) {
    double l2 = relL2(p, refP);
    double max = relDiff(p, refP);
    info("%s: parameters |a - b| / |b| = %.3g (tolerance %.0g), max |a - b| / max |b| = %.3g (tolerance %.0g)", what, l2,
        GLOBAL_BATCH_L2_TOLERANCE, max, GLOBAL_BATCH_MAX_TOLERANCE);
    check(what, l2 <= GLOBAL_BATCH_L2_TOLERANCE && max <= GLOBAL_BATCH_MAX_TOLERANCE, "L2 " + l2 + ", max " + max);
  }

  // ----------------------------------------------------------------------------- averaging

  static void averagingSgd() {
    ExampleSource train = digits(700, 1);
    MultiLayerConfiguration conf = lenet(7, new Sgd(0.05));
    float[] p;
    try (MultiLayerNetwork net = network(conf)) {
      DistributedTrainer t = new DistributedTrainer.Builder(net, world).parameterAveraging(1).build();
      t.fit(shard(train, 32, 99), 5);
      check("50 steps", net.getIterationCount() == 50);
      p = net.params().toFloatArray();
    }
    check("replicas bit-identical across ranks", sameOnAllRanks(p));
    Run ref = single(conf, train, 32 * size, 5);
    closeToGlobalBatch("averaging every step with SGD = the global batch", p, ref.params);
  }

  static void averagingNesterovs() {
    ExampleSource train = digits(700, 1); // 10 steps per epoch: rounds of 3, 3, 3, 1
    int k = 3;
    int epochs = 5;
    MultiLayerConfiguration conf = lenet(7, new Nesterovs(0.01, 0.9));
    float[] p;
    float[] u;
    List<Double> scores = new ArrayList<>();
    try (MultiLayerNetwork net = network(conf)) {
      DistributedTrainer t = new DistributedTrainer.Builder(net, world).parameterAveraging(k).saveUpdater(true)
          .listeners(new TrainingListener() {
            @Override
            public void iterationDone(org.ndrt.nn.Model model, long iteration, int epoch, double score, int examples) {
              scores.add(score);
            }
          }).build();
      t.fit(shard(train, 32, 99), epochs);
      p = net.params().toFloatArray();
      u = net.updaterState().toFloatArray();
    }
    check("listeners: one call per step on rank 0, none elsewhere", scores.size() == (rank == 0 ? 50 : 0),
        scores.size() + " calls");
    check("replicas bit-identical across ranks", sameOnAllRanks(p) && sameOnAllRanks(u));

    // The reference: each rank trains a plain replica on its shard with MultiLayerNetwork.fit and,
    // every k steps and at each epoch's end, replaces the parameters and the updater state by their
    // mean over the ranks, computed here in Java f32 arithmetic from an allgather (the sum in rank
    // order, divided by the size). Each replica is trained in the process that trains it under the
    // trainer too: the conv kernels, chosen by timing on the first call of each shape, differ from
    // process to process (another process's choice can move a 50-step LeNet run by up to 2e-3), but
    // within a process they stay the same, so the two runs can be compared bit for bit.
    try (MultiLayerNetwork rep = network(conf); ShardedDataSetIterator it = shard(train, 32, 99)) {
      for (int e = 0; e < epochs; ++e) {
        it.seek(e, 0);
        int inRound = 0;
        while (it.hasNext()) {
          try (org.ndrt.data.DataSet ds = it.next()) {
            rep.fit(ds);
          }
          if (++inRound == k || !it.hasNext()) {
            averageOverRanks(rep.params());
            averageOverRanks(rep.updaterState());
            inRound = 0;
          }
        }
      }
      float[] rp = rep.params().toFloatArray();
      float[] ru = rep.updaterState().toFloatArray();
      info("averaging every %d steps (Nesterovs, updater state averaged) vs replicas averaged by hand: max rel diff %.3g,"
          + " momentum %.3g", k, relDiff(p, rp), relDiff(u, ru));
      // Bit for bit in almost every run; about 1 run in 12 on a loaded machine (a busy-loop on one
      // core) the two differ in the last bits (1.7e-7 parameters, 3.3e-7 momentum), for a reason not
      // found yet (a kernel choice inside the process is the suspect). A real fault is far larger:
      // with the momentum not averaged they differ by 3.3e-2 (parameters) and 1.1e-1 (momentum).
      // So: 1e-5.
      check("averaging every 3 steps = replicas averaged by hand (parameters; bit for bit or within 1e-5)",
          Arrays.equals(p, rp) || relDiff(p, rp) <= 1e-5, "rel diff " + relDiff(p, rp));
      check("... and the averaged updater state", Arrays.equals(u, ru) || relDiff(u, ru) <= 1e-5,
          "rel diff " + relDiff(u, ru));
    }
  }

  /** t (a vector) becomes the mean over the ranks: allgather, then the sum in rank order / size in f32. */
  static void averageOverRanks(Tensor t) {
    int n = (int) t.numel();
    try (Tensor all = Tensor.zeros(DType.F32, (long) n * size)) {
      world.allgather(t, all);
      float[] v = all.toFloatArray();
      float[] mean = Arrays.copyOf(v, n);
      for (int r = 1; r < size; ++r) {
        for (int i = 0; i < n; ++i) {
          mean[i] += v[r * n + i];
        }
      }
      for (int i = 0; i < n; ++i) {
        mean[i] /= size;
      }
      t.copyFrom(mean);
    }
  }

  // ---------------------------------------------------------------------------- jvm signals

  static int length(int[] a) {
    return a.length; // compiled with an implicit null check: a SIGSEGV the JVM turns into an NPE
  }

  static int hash(Object o) {
    return o.hashCode();
  }

  static int depth(int n) {
    return n == Integer.MAX_VALUE ? n : depth(n + 1) + 1;
  }

  static void jvmSignals() {
    // MPI is initialised (Communicator.world() in main). Warm the methods up until the JIT has
    // compiled them (-XX:-BackgroundCompilation in the ctest: compiled before the loop goes on), then
    // hand them null now and then.
    int[] arr = new int[3];
    Object obj = new Object();
    long sink = 0;
    for (int i = 0; i < 200_000; ++i) {
      sink += length(arr) + (hash(obj) & 1);
    }
    int npes = 0;
    for (int i = 0; i < 200_000; ++i) {
      boolean nul = i % 1000 == 999;
      try {
        sink += length(nul ? null : arr);
        sink += hash(nul ? null : obj) & 1;
      } catch (NullPointerException e) {
        ++npes;
      }
    }
    check("null dereferences in JIT-compiled code are NullPointerExceptions after MPI_Init", npes == 200, npes + " of 200");
    boolean overflow = false;
    try {
      sink += depth(0);
    } catch (StackOverflowError e) {
      overflow = true;
    }
    check("deep recursion is a StackOverflowError after MPI_Init", overflow);
    try (Tensor t = Tensor.from(new float[] {1}, 1)) {
      world.allreduce(t, ReduceOp.SUM);
      check("collectives still work", t.toFloatArray()[0] == size);
    }
    if (sink == 42) {
      System.out.println(); // keeps sink alive
    }
  }

  // ----------------------------------------------------------------------------- checkpoint

  static void checkpoint() throws IOException {
    ExampleSource train = digits(700, 3); // 10 steps per epoch of 2 x 32
    int epochs = 3; // 30 steps
    MultiLayerConfiguration conf = mlp(5);
    Path base = Files.createTempDirectory("ndrt-dist-check-");
    try {
      for (String mode : List.of("gradient sharing", "parameter averaging every 3")) {
        boolean gs = mode.startsWith("gradient");
        Path dirA = base.resolve(gs ? "gs-a" : "pa-a");
        Path dirB = base.resolve(gs ? "gs-b" : "pa-b"); // iteration 10's, kept by a listener
        Path dirC = base.resolve(gs ? "gs-c" : "pa-c"); // iteration 13's, kept before the run goes on
        Files.createDirectories(dirB);
        Files.createDirectories(dirC);
        // The uninterrupted run.
        float[] full;
        float[] fullU;
        long[] fullOffsets;
        try (MultiLayerNetwork net = network(conf)) {
          builder(net, gs).build().fit(shard(train, 32, 11), epochs);
          full = net.params().toFloatArray();
          fullU = net.updaterState().toFloatArray();
          fullOffsets = RandomStreams.offsets(net);
        }
        // Stopped at 13 (checkpoints at 5, 10 and 13); rank 0's listener keeps the one of iteration 10.
        float[] atStop;
        try (MultiLayerNetwork net = network(conf)) {
          DistributedTrainer t = builder(net, gs).checkpointDir(dirA).checkpointEvery(5)
              .listeners(new TrainingListener() {
                @Override
                public void iterationDone(org.ndrt.nn.Model model, long iteration, int epoch, double score, int examples) {
                  if (iteration == 11) {
                    try {
                      Files.copy(dirA.resolve(DistributedTrainer.CHECKPOINT_FILE),
                          dirB.resolve(DistributedTrainer.CHECKPOINT_FILE), StandardCopyOption.REPLACE_EXISTING);
                    } catch (IOException e) {
                      throw new UncheckedIOException(e);
                    }
                  }
                }
              }).build();
          ShardedDataSetIterator it = shard(train, 32, 11);
          t.fit(it, epochs, 13);
          check(mode + ": fit stops at iteration 13 (epoch 1, minibatch 3)",
              net.getIterationCount() == 13 && net.getEpochCount() == 1 && it.position() == 3,
              net.getIterationCount() + " iterations, epoch " + net.getEpochCount() + ", minibatch " + it.position());
          atStop = net.params().toFloatArray();
          if (rank == 0) {
            Files.copy(dirA.resolve(DistributedTrainer.CHECKPOINT_FILE), dirC.resolve(DistributedTrainer.CHECKPOINT_FILE));
            try (MultiLayerNetwork saved = MultiLayerNetwork.load(dirA.resolve(DistributedTrainer.CHECKPOINT_FILE).toFile())) {
              check(mode + ": the checkpoint is a model zip MultiLayerNetwork.load reads",
                  saved.getIterationCount() == 13 && Arrays.equals(saved.params().toFloatArray(), atStop));
            }
          } else {
            check(mode + ": the checkpoint is a model zip MultiLayerNetwork.load reads", true);
          }
          t.fit(it, epochs); // the same trainer goes on from where it stopped
          check(mode + ": the stopped trainer's next fit() finishes the run bit for bit",
              Arrays.equals(net.params().toFloatArray(), full), "rel diff " + relDiff(net.params().toFloatArray(), full));
        }
        // New trainers on new networks (parameters scrambled first) resuming from each checkpoint.
        for (Path dir : List.of(dirC, dirB)) {
          String which = dir == dirC ? "iteration 13 (inside an epoch)" : "iteration 10 (an epoch's end)";
          try (MultiLayerNetwork net = network(conf)) {
            net.params().fill(0.25);
            DistributedTrainer t = builder(net, gs).resumeFrom(dir).build();
            t.fit(shard(train, 32, 11), epochs);
            float[] p = net.params().toFloatArray();
            check(mode + ": resumed from " + which + " = the uninterrupted run, bit for bit",
                Arrays.equals(p, full) && Arrays.equals(net.updaterState().toFloatArray(), fullU)
                    && Arrays.equals(RandomStreams.offsets(net), fullOffsets) && net.getIterationCount() == 30,
                "rel diff " + relDiff(p, full) + ", iterations " + net.getIterationCount());
          }
        }
      }
      // Bad checkpoints fail fit() on every rank (rank 0 tells the others), nobody hangs.
      Path empty = Files.createDirectories(base.resolve("empty"));
      try (MultiLayerNetwork net = network(conf)) {
        DistributedTrainer t = builder(net, true).resumeFrom(empty).build();
        check("resuming from a directory without a checkpoint fails on every rank",
            throwsType(IllegalStateException.class, () -> t.fit(shard(train, 32, 11), epochs)));
      }
      try (MultiLayerNetwork net = network(mlp(6))) {
        DistributedTrainer t = builder(net, true).resumeFrom(base.resolve("gs-a")).build();
        check("resuming a network of another configuration fails on every rank",
            throwsType(IllegalStateException.class, () -> t.fit(shard(train, 32, 11), epochs)));
      }
      try (MultiLayerNetwork net = network(conf)) {
        DistributedTrainer t = builder(net, false).resumeFrom(base.resolve("gs-a")).build();
        check("resuming a gradient-sharing checkpoint with parameter averaging fails on every rank",
            throwsType(IllegalStateException.class, () -> t.fit(shard(train, 32, 11), epochs)));
      }
    } finally {
      deleteTree(base);
    }
  }

  static DistributedTrainer.Builder builder(MultiLayerNetwork net, boolean gradientSharing) {
    DistributedTrainer.Builder b = new DistributedTrainer.Builder(net, world);
    return gradientSharing ? b.gradientSharing() : b.parameterAveraging(3).saveUpdater(true);
  }

  static void deleteTree(Path p) throws IOException {
    if (Files.isDirectory(p)) {
      try (var s = Files.list(p)) {
        for (Path c : (Iterable<Path>) s::iterator) {
          deleteTree(c);
        }
      }
    }
    Files.deleteIfExists(p);
  }

  // ------------------------------------------------------------- train, compare (kill_restart.sh)
  //
  // java/tests/kill_restart.sh drives these from bash: `train` is one training job of the test (run
  // under mpirun; uninterrupted, killed, or restarted from its checkpoint directory), `compare` (no
  // MPI) compares two jobs' final states.

  static final String COMPARE_USAGE = "A B [--l2 TOL] [--max TOL]   (exit 0: bit-identical, or within both tolerances)";

  /** Options of {@code train}. */
  static final class TrainJob {
    static final String USAGE = "--steps N --checkpoint DIR --out FILE [--averaging K] [--net lenet|mlp]\n"
        + "                             [--die-at M [--die-rank 1] [--die-signal KILL|STOP]]";
    int steps = -1;
    Path checkpoint;
    Path out;
    int averaging; // 0: gradient sharing
    String net = "lenet";
    long dieAt = -1;
    int dieRank = 1;
    String dieSignal = "KILL";

    static TrainJob parse(String[] args) {
      TrainJob j = new TrainJob();
      try {
        for (int i = 1; i < args.length; i += 2) {
          if (i + 1 >= args.length) {
            throw new IllegalArgumentException("missing value after " + args[i]);
          }
          String v = args[i + 1];
          switch (args[i]) {
            case "--steps": j.steps = Integer.parseInt(v); break;
            case "--checkpoint": j.checkpoint = Path.of(v); break;
            case "--out": j.out = Path.of(v); break;
            case "--averaging": j.averaging = Integer.parseInt(v); break;
            case "--net": j.net = v; break;
            case "--die-at": j.dieAt = Long.parseLong(v); break;
            case "--die-rank": j.dieRank = Integer.parseInt(v); break;
            case "--die-signal": j.dieSignal = v; break;
            default: throw new IllegalArgumentException("unknown option " + args[i]);
          }
        }
        if (j.steps < 1 || j.checkpoint == null || j.out == null) {
          throw new IllegalArgumentException("--steps (>= 1), --checkpoint and --out are needed");
        }
        if (j.averaging < 0 || !List.of("lenet", "mlp").contains(j.net) || !List.of("KILL", "STOP").contains(j.dieSignal)) {
          throw new IllegalArgumentException("bad --averaging, --net or --die-signal");
        }
      } catch (IllegalArgumentException e) { // NumberFormatException too
        System.err.println("DistributedCheck train: " + e.getMessage());
        System.err.println("usage: DistributedCheck train " + USAGE);
        System.exit(2);
      }
      return j;
    }

    /** The iteration where fit(it, epochs, steps) stops: the first synchronisation point at or after steps. */
    long stopsAt(int stepsPerEpoch) {
      int k = averaging == 0 ? 1 : averaging;
      long it = 0;
      while (true) {
        for (int pos = 0; pos < stepsPerEpoch; ) {
          int round = Math.min(k, stepsPerEpoch - pos);
          pos += round;
          it += round;
          if (it >= steps) {
            return it;
          }
        }
      }
    }
  }

  /**
   * One job of kill_restart.sh: LeNet (or the small MLP with dropout) with Nesterovs on 700 synthetic
   * digits, 2 x 32 per step (10 steps per epoch), gradient sharing or averaging every K steps,
   * checkpoint every step (every averaging) into DIR, and a resume from DIR when a checkpoint is
   * there; stops at the first synchronisation point at or after iteration N. Rank 0 writes the final
   * state to FILE ({@link #writeState}). With {@code --die-at M}, rank R sends itself SIGKILL (or
   * SIGSTOP) when it fetches the minibatch after iteration M: by then rank 0 has written (and
   * confirmed, in the checkpoint's broadcast) every checkpoint up to iteration M.
   */
  static void train(TrainJob job) throws IOException {
    ExampleSource data = job.net.equals("mlp") ? digits(700, 3) : digits(700, 1);
    MultiLayerConfiguration conf = job.net.equals("mlp") ? mlp(5) : lenet(7, new Nesterovs(0.01, 0.9));
    try (MultiLayerNetwork net = network(conf)) {
      ExampleSource src = job.dieAt >= 0 && rank == job.dieRank ? dieAt(data, net, job) : data;
      DistributedTrainer.Builder b = new DistributedTrainer.Builder(net, world).checkpointDir(job.checkpoint).checkpointEvery(1);
      if (job.averaging > 0) {
        b.parameterAveraging(job.averaging).saveUpdater(true);
      } else {
        b.gradientSharing();
      }
      DistributedTrainer t = b.build();
      long expected;
      long t0 = System.nanoTime();
      try (ShardedDataSetIterator it = shard(src, 32, 99)) {
        int spe = it.stepsPerEpoch();
        expected = job.stopsAt(spe);
        t.fit(it, (int) ((expected + spe - 1) / spe), job.steps);
      }
      String mode = job.averaging > 0 ? "averaging every " + job.averaging : "gradient sharing";
      float[] p = net.params().toFloatArray();
      float[] u = net.updaterState().toFloatArray();
      info("train %s, %s: stopped at iteration %d (epoch %d) after %.1f s; parameters %s", job.net, mode,
          net.getIterationCount(), net.getEpochCount(), (System.nanoTime() - t0) / 1e9, digest(p));
      check(mode + ": stopped at iteration " + expected, net.getIterationCount() == expected,
          "iteration " + net.getIterationCount());
      check("replicas bit-identical across ranks (parameters, updater state)", sameOnAllRanks(p) && sameOnAllRanks(u));
      if (rank == 0) {
        writeState(job.out, net.getIterationCount(), net.getEpochCount(), p, u);
      }
    }
  }

  /** {@code data} that sends this process the signal when it is asked for an example after iteration {@code job.dieAt}. */
  static ExampleSource dieAt(ExampleSource data, MultiLayerNetwork net, TrainJob job) {
    return new ExampleSource() {
      @Override
      public int size() {
        return data.size();
      }

      @Override
      public long[] featureShape() {
        return data.featureShape();
      }

      @Override
      public int labelWidth() {
        return data.labelWidth();
      }

      @Override
      public int featureSize() {
        return data.featureSize();
      }

      @Override
      public void copy(int i, float[] features, int featureOffset, float[] labels, int labelOffset) {
        if (net.getIterationCount() >= job.dieAt) {
          signalSelf(job.dieSignal, net.getIterationCount());
        }
        data.copy(i, features, featureOffset, labels, labelOffset);
      }
    };
  }

  /** SIGKILL or SIGSTOP to this JVM (Java has no call for it: kill(1)); halts if it is still running 30 s later. */
  static void signalSelf(String signal, long iteration) {
    long pid = ProcessHandle.current().pid();
    System.out.printf(Locale.ROOT, "rank %d: SIG%s to itself (pid %d) after iteration %d, at unix ms %d%n", rank, signal,
        pid, iteration, System.currentTimeMillis());
    System.out.flush();
    System.err.flush();
    try {
      Process p = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
      p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS);
      Thread.sleep(30_000);
    } catch (IOException | InterruptedException e) {
      System.err.println("rank " + rank + ": kill -" + signal + " failed: " + e);
    }
    System.err.println("rank " + rank + ": still running after SIG" + signal + "; halting");
    Runtime.getRuntime().halt(99);
  }

  private static final long STATE_MAGIC = 0x4e44525453544131L; // "NDRTSTA1"

  /** Final state for compare: magic, iteration, epoch, then the parameters and the updater state (counts, f32 bits). */
  static void writeState(Path file, long iteration, int epoch, float[] params, float[] updater) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try (java.io.DataOutputStream o = new java.io.DataOutputStream(new java.io.BufferedOutputStream(Files.newOutputStream(tmp)))) {
      o.writeLong(STATE_MAGIC);
      o.writeLong(iteration);
      o.writeInt(epoch);
      for (float[] v : new float[][] {params, updater}) {
        o.writeInt(v.length);
        for (float f : v) {
          o.writeInt(Float.floatToRawIntBits(f));
        }
      }
    }
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
  }

  record State(long iteration, int epoch, float[] params, float[] updater) {}

  static State readState(Path file) throws IOException {
    try (java.io.DataInputStream in = new java.io.DataInputStream(new java.io.BufferedInputStream(Files.newInputStream(file)))) {
      if (in.readLong() != STATE_MAGIC) {
        throw new IOException(file + ": not a state file of DistributedCheck train");
      }
      long iteration = in.readLong();
      int epoch = in.readInt();
      float[][] v = new float[2][];
      for (int k = 0; k < 2; ++k) {
        v[k] = new float[in.readInt()];
        for (int i = 0; i < v[k].length; ++i) {
          v[k][i] = Float.intBitsToFloat(in.readInt());
        }
      }
      return new State(iteration, epoch, v[0], v[1]);
    }
  }

  /** The first 16 hex digits of the SHA-256 of the values' bits. */
  static String digest(float[] v) {
    try {
      java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
      java.nio.ByteBuffer bb = java.nio.ByteBuffer.allocate(4 * v.length);
      bb.asFloatBuffer().put(v);
      byte[] h = md.digest(bb.array());
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < 8; ++i) {
        sb.append(String.format(Locale.ROOT, "%02x", h[i]));
      }
      return sb.toString();
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Values that differ (bits). */
  static int differing(float[] a, float[] b) {
    int n = 0;
    for (int i = 0; i < a.length; ++i) {
      n += Float.floatToRawIntBits(a[i]) != Float.floatToRawIntBits(b[i]) ? 1 : 0;
    }
    return n;
  }

  /**
   * compare A B: bit-identical parameters and updater state (exit 0), else the parameters' relative
   * distances against the tolerances (default 0: exact only); the updater state's are printed.
   */
  static int compare(String[] args) {
    if (args.length != 3 && args.length != 5 && args.length != 7) {
      System.err.println("usage: DistributedCheck compare " + COMPARE_USAGE);
      return 2;
    }
    double l2Tol = 0;
    double maxTol = 0;
    for (int i = 3; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--l2": l2Tol = Double.parseDouble(args[i + 1]); break;
        case "--max": maxTol = Double.parseDouble(args[i + 1]); break;
        default:
          System.err.println("usage: DistributedCheck compare " + COMPARE_USAGE);
          return 2;
      }
    }
    State a;
    State b;
    try {
      a = readState(Path.of(args[1]));
      b = readState(Path.of(args[2]));
    } catch (IOException e) {
      System.out.println("compare: " + e);
      return 1;
    }
    if (a.iteration() != b.iteration() || a.epoch() != b.epoch() || a.params().length != b.params().length
        || a.updater().length != b.updater().length) {
      System.out.printf(Locale.ROOT, "compare: DIFFERENT: iteration %d vs %d, epoch %d vs %d, %d vs %d parameters%n",
          a.iteration(), b.iteration(), a.epoch(), b.epoch(), a.params().length, b.params().length);
      return 1;
    }
    int dp = differing(a.params(), b.params());
    int du = differing(a.updater(), b.updater());
    if (dp == 0 && du == 0) {
      System.out.printf(Locale.ROOT, "compare: iteration %d, %d parameters and %d updater values: bit-identical (%s)%n",
          a.iteration(), a.params().length, a.updater().length, digest(a.params()));
      return 0;
    }
    double l2 = relL2(a.params(), b.params());
    double max = relDiff(a.params(), b.params());
    boolean ok = l2 <= l2Tol && max <= maxTol;
    System.out.printf(Locale.ROOT, "compare: iteration %d: %d of %d parameters differ: |a - b| / |b| = %.3g (tolerance %.3g),"
        + " max |a - b| / max |b| = %.3g (tolerance %.3g); updater state: %d of %d differ, %.3g, %.3g: %s%n", a.iteration(),
        dp, a.params().length, l2, l2Tol, max, maxTol, du, a.updater().length, relL2(a.updater(), b.updater()),
        relDiff(a.updater(), b.updater()), ok ? "within tolerance" : "DIFFERENT");
    return ok ? 0 : 1;
  }
}
