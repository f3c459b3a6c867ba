package org.ndrt.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.ndrt.DType;
import org.ndrt.Ndrt;
import org.ndrt.capi.NdrtC;
import org.ndrt.data.DataSet;
import org.ndrt.data.MnistDataSetIterator;
import org.ndrt.examples.LeNetMnist;
import org.ndrt.examples.ResNetMnist;
import org.ndrt.nn.ComputationGraph;
import org.ndrt.nn.MultiLayerNetwork;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.ComputationGraphConfiguration;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.WeightInit;
import org.ndrt.nn.conf.layers.ConvolutionLayer;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.conf.layers.SubsamplingLayer;
import org.ndrt.nn.updater.Nesterovs;

/**
 * Training and inference speed of {@link ResNetMnist}'s residual network (a {@link ComputationGraph})
 * from Java; tests/bench/run_resnet.sh runs it beside tests/bench/resnet_torch.py. A benchmark, not a
 * test.
 *
 * <pre>
 * java -cp ndrt.jar:ndrt-bench.jar org.ndrt.bench.ResNetBench speed|infer [--net resnet] [--threads T]
 *      [--iters 50] [--warmup 10] [--reps 5] [--max-seconds 0] [--batch 64 (infer: 256)] [--width 32]
 *      [--stages 3] [--blocks 1] [--seed 123] [--data DIR] [--profile 0|1]
 * </pre>
 *
 * <p>As {@code LeNetBench speed / infer}: the train part's minibatches loaded into memory first and
 * cycled, {@code warmup} steps, then {@code reps} timed runs of {@code iters} steps (each stopping
 * early after {@code max-seconds} when above 0), one JSON line per run ({@code img_s}, {@code
 * cpu_util}, {@code others_busy}, the last loss); {@code --profile 1} adds a run with the runtime's
 * profiler on and prints its per-op summary to stderr.
 *
 * <p>{@code --net}: {@code resnet} (default: {@code ResNetMnist.resnet(seed, width, stages, blocks,
 * 0.002)}); {@code lenet-graph} and {@code lenet-mln}: LeNetMnist's network as a ComputationGraph (a
 * chain of the same layers) and as the MultiLayerNetwork, to see what the graph's execution costs on
 * the same layers (the MultiLayerNetwork plans channels-last runs and fuses conv + pool).
 */
public final class ResNetBench {
  private ResNetBench() {}

  /** LeNetMnist.lenet's layers and settings as a graph: in -> conv -> pool -> conv -> pool -> dense -> out. */
  static ComputationGraphConfiguration lenetGraph(long seed) {
    return new NeuralNetConfiguration.Builder()
        .seed(seed).l2(0.0005).weightInit(WeightInit.XAVIER).updater(new Nesterovs(0.01, 0.9))
        .graphBuilder()
        .addInputs("in")
        .setInputTypes(InputType.convolutionalFlat(28, 28, 1))
        .addLayer("c1", new ConvolutionLayer.Builder(5, 5).stride(1, 1).nOut(20).activation(Activation.IDENTITY).build(),
            "in")
        .addLayer("p1", new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).stride(2, 2)
            .build(), "c1")
        .addLayer("c2", new ConvolutionLayer.Builder(5, 5).stride(1, 1).nOut(50).activation(Activation.IDENTITY).build(),
            "p1")
        .addLayer("p2", new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).stride(2, 2)
            .build(), "c2")
        .addLayer("d", new DenseLayer.Builder().activation(Activation.RELU).nOut(500).build(), "p2")
        .addLayer("out", new OutputLayer.Builder(LossFunction.NEGATIVELOGLIKELIHOOD).nOut(10)
            .activation(Activation.SOFTMAX).build(), "d")
        .setOutputs("out")
        .build();
  }

  /** One training step or forward pass of either network kind, and its last score. */
  private interface Net extends AutoCloseable {
    void step(DataSet ds, boolean infer);

    double score();

    @Override
    void close();
  }

  private static Net open(String kind, long seed, int width, int stages, int blocks) {
    if (kind.equals("lenet-mln")) {
      MultiLayerNetwork m = new MultiLayerNetwork(LeNetMnist.lenet(seed, DType.F32));
      m.init();
      return new Net() {
        public void step(DataSet ds, boolean infer) {
          if (infer) {
            m.output(ds.features()).close();
          } else {
            m.fit(ds);
          }
        }

        public double score() {
          return m.score();
        }

        public void close() {
          m.close();
        }
      };
    }
    ComputationGraphConfiguration conf = switch (kind) {
      case "resnet" -> ResNetMnist.resnet(seed, width, stages, blocks, 0.002);
      case "lenet-graph" -> lenetGraph(seed);
      default -> throw new IllegalArgumentException("--net resnet, lenet-graph or lenet-mln, not " + kind);
    };
    ComputationGraph g = new ComputationGraph(conf);
    g.init();
    return new Net() {
      public void step(DataSet ds, boolean infer) {
        if (infer) {
          g.outputSingle(ds.features()).close();
        } else {
          g.fit(ds);
        }
      }

      public double score() {
        return g.score();
      }

      public void close() {
        g.close();
      }
    };
  }

  public static void main(String[] args) throws IOException {
    if (args.length == 0 || args[0].equals("--help") || !(args[0].equals("speed") || args[0].equals("infer"))) {
      usage(args.length == 0 || args[0].equals("--help") ? null : "unknown mode " + args[0]);
    }
    boolean infer = args[0].equals("infer");
    String kind = "resnet";
    int threads = 0;
    int iters = 50;
    int warmup = 10;
    int reps = 5;
    int batch = infer ? 256 : 64;
    int width = 32;
    int stages = 3;
    int blocks = 1;
    double maxSeconds = 0;
    long seed = 123;
    Path data = null;
    boolean profile = false;
    for (int i = 1; i < args.length; i += 2) {
      String a = args[i];
      if (i + 1 >= args.length) {
        usage("missing value after " + a);
      }
      String v = args[i + 1];
      switch (a) {
        case "--net": kind = v; break;
        case "--threads": threads = Integer.parseInt(v); break;
        case "--iters": iters = Integer.parseInt(v); break;
        case "--warmup": warmup = Integer.parseInt(v); break;
        case "--reps": reps = Integer.parseInt(v); break;
        case "--batch": batch = Integer.parseInt(v); break;
        case "--width": width = Integer.parseInt(v); break;
        case "--stages": stages = Integer.parseInt(v); break;
        case "--blocks": blocks = Integer.parseInt(v); break;
        case "--max-seconds": maxSeconds = Double.parseDouble(v); break;
        case "--seed": seed = Long.parseLong(v); break;
        case "--data": data = Path.of(v); break;
        case "--profile": profile = Integer.parseInt(v) != 0; break;
        default: usage("unknown option " + a);
      }
    }
    if (iters < 1 || reps < 1 || batch < 1 || warmup < 0 || !(maxSeconds >= 0)) {
      usage("--iters, --reps, --batch must be >= 1, --warmup and --max-seconds >= 0");
    }
    if (threads > 0) {
      Ndrt.setConfig("cpu.threads", Integer.toString(threads));
    }
    int t = Integer.parseInt(Ndrt.config("cpu.threads"));
    long capNs = (long) (maxSeconds * 1e9);
    List<DataSet> batches = new ArrayList<>();
    try {
      MnistDataSetIterator.Builder b = MnistDataSetIterator.builder().seed(seed).batchSize(batch).train(true);
      if (data != null) {
        b.dataDir(data);
      }
      MnistDataSetIterator it = b.build();
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
      try (Net net = open(kind, seed, width, stages, blocks)) {
        int[] next = {0};
        Steps steps = (n, t0, cap) -> {
          int done = 0;
          while (done < n) {
            net.step(batches.get(next[0]), infer);
            next[0] = (next[0] + 1) % batches.size();
            ++done;
            if (cap > 0 && System.nanoTime() - t0 > cap) {
              break;
            }
          }
          return done;
        };
        steps.run(warmup, System.nanoTime(), capNs);
        String variant = kind.equals("resnet") ? "resnet_w" + width + "_s" + stages + "_b" + blocks : kind;
        for (int r = 0; r < reps; ++r) {
          LeNetBench.Meter m = new LeNetBench.Meter();
          int done = steps.run(iters, m.t0, capNs);
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
              "{\"impl\":\"ndrt-java\",\"mode\":\"%s\",\"variant\":\"%s\",\"threads\":%d,\"batch\":%d,\"iters\":%d,"
                  + "\"rep\":%d,\"img_s\":%.1f,\"ms_per_iter\":%.3f,\"cpu_util\":%.2f,\"others_busy\":%.2f,%s"
                  + "\"os_threads\":%d}%n",
              infer ? "infer" : "train", variant, t, batch, done, r, (double) done * batch / m.wall, m.wall * 1e3 / done,
              m.cpu / m.wall, m.others, loss, LeNetBench.osThreads());
        }
        if (profile) {
          NdrtC.profiler_clear();
          NdrtC.profiler_enable(1);
          int done;
          try {
            done = steps.run(iters, System.nanoTime(), 0);
          } finally {
            NdrtC.profiler_enable(0);
          }
          System.err.printf(Locale.ROOT, "profile of %d %s steps of %s, %d threads:%n%s%n", done,
              infer ? "inference" : "training", variant, t, NdrtC.profiler_summary());
        }
      }
    } finally {
      for (DataSet ds : batches) {
        ds.close();
      }
    }
  }

  private interface Steps {
    int run(int n, long t0, long capNs);
  }

  private static void usage(String error) {
    if (error != null) {
      System.err.println("ResNetBench: " + error);
    }
    System.err.println("usage: ResNetBench speed|infer [--net resnet|lenet-graph|lenet-mln] [--threads T] [--iters 50]"
        + " [--warmup 10] [--reps 5] [--max-seconds 0] [--batch 64 (infer: 256)] [--width 32] [--stages 3] [--blocks 1]"
        + " [--seed 123] [--data DIR] [--profile 0|1]");
    System.exit(error == null ? 0 : 2);
  }
}
