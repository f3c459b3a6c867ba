package org.ndrt.examples;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Random;
import org.ndrt.DType;
import org.ndrt.Ndrt;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.data.DataSetIterator;
import org.ndrt.data.MnistDataSetIterator;
import org.ndrt.data.MultiDataSet;
import org.ndrt.data.MultiDataSetIterator;
import org.ndrt.eval.Evaluation;
import org.ndrt.nn.ComputationGraph;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.ComputationGraphConfiguration;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.WeightInit;
import org.ndrt.nn.conf.graph.MergeVertex;
import org.ndrt.nn.conf.layers.ConvolutionLayer;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.conf.layers.SubsamplingLayer;
import org.ndrt.nn.listeners.CollectScoresListener;
import org.ndrt.nn.listeners.ProgressBarListener;
import org.ndrt.nn.updater.Adam;

/**
 * A graph with two inputs: the MNIST image (conv 5x5x8 -> maxpool 2 -> conv 5x5x16 -> maxpool 2 ->
 * dense 64) and a noisy hint of its label (a one-hot vector that names the right digit with
 * probability {@code --hint-accuracy}, else a random other digit; dense 16), joined by a MergeVertex
 * into a dense 64 layer and a softmax output. After training it evaluates the test part three ways:
 * as trained (image and hint), with the hints shuffled between the examples (the hint's share), and
 * with blank images (the hint alone), so both branches are seen to feed the merge.
 *
 * <pre>
 * java -cp ndrt.jar org.ndrt.examples.TwoInputMnist [--epochs 1] [--batch 64] [--lr 0.001]
 *      [--hint-accuracy 0.7] [--threads T] [--seed 123] [--data DIR] [--max-examples N]
 *      [--max-test-examples N] [--check]
 * </pre>
 *
 * <p>{@code --check} exits 1 unless the training loss fell (last fifth of the minibatches below 0.6 of
 * the first fifth) and the blank-image accuracy is above chance (0.1) by 0.1. Exits 77 when MNIST
 * cannot be had.
 */
public final class TwoInputMnist {
  private TwoInputMnist() {}

  public static ComputationGraphConfiguration network(long seed, double lr) {
    return new NeuralNetConfiguration.Builder()
        .seed(seed)
        .weightInit(WeightInit.RELU)
        .updater(new Adam(lr))
        .graphBuilder()
        .addInputs("image", "hint")
        .setInputTypes(InputType.convolutionalFlat(28, 28, 1), InputType.feedForward(10))
        .addLayer("conv1", new ConvolutionLayer.Builder(5, 5).nOut(8).activation(Activation.RELU).build(), "image")
        .addLayer("pool1", new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).stride(2, 2)
            .build(), "conv1")
        .addLayer("conv2", new ConvolutionLayer.Builder(5, 5).nOut(16).activation(Activation.RELU).build(), "pool1")
        .addLayer("pool2", new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).stride(2, 2)
            .build(), "conv2")
        .addLayer("image_dense", new DenseLayer.Builder().nOut(64).activation(Activation.RELU).build(), "pool2")
        .addLayer("hint_dense", new DenseLayer.Builder().nOut(16).activation(Activation.RELU).build(), "hint")
        .addVertex("merge", new MergeVertex(), "image_dense", "hint_dense")
        .addLayer("joint", new DenseLayer.Builder().nOut(64).activation(Activation.RELU).build(), "merge")
        .addLayer("out", new OutputLayer.Builder(LossFunction.NEGATIVELOGLIKELIHOOD).nOut(10)
            .activation(Activation.SOFTMAX).weightInit(WeightInit.XAVIER).build(), "joint")
        .setOutputs("out")
        .build();
  }

  /**
   * MNIST minibatches as {image, hint} -> label. The hints are drawn once per example from a seeded
   * stream, in iterator order, every pass anew; {@code shuffleHints} gives each example the hint of
   * another example of its minibatch, {@code blankImages} all-zero images.
   */
  static final class WithHints implements MultiDataSetIterator {
    private final DataSetIterator in;
    private final double hintAccuracy;
    private final long seed;
    private final boolean shuffleHints;
    private final boolean blankImages;
    private Random random;

    WithHints(DataSetIterator in, double hintAccuracy, long seed, boolean shuffleHints, boolean blankImages) {
      this.in = in;
      this.hintAccuracy = hintAccuracy;
      this.seed = seed;
      this.shuffleHints = shuffleHints;
      this.blankImages = blankImages;
      this.random = new Random(seed);
    }

    @Override
    public boolean hasNext() {
      return in.hasNext();
    }

    @Override
    public MultiDataSet next() {
      try (DataSet ds = in.next()) {
        float[] y = ds.labels().toFloatArray();
        int n = y.length / 10;
        float[] hint = new float[n * 10];
        int[] from = new int[n];
        for (int i = 0; i < n; ++i) {
          int label = 0;
          while (y[i * 10 + label] != 1f) {
            ++label;
          }
          int h = random.nextDouble() < hintAccuracy ? label : (label + 1 + random.nextInt(9)) % 10;
          hint[i * 10 + h] = 1;
          from[i] = i;
        }
        if (shuffleHints) {
          for (int i = n - 1; i > 0; --i) {
            int j = random.nextInt(i + 1);
            int t = from[i];
            from[i] = from[j];
            from[j] = t;
          }
          float[] moved = new float[n * 10];
          for (int i = 0; i < n; ++i) {
            System.arraycopy(hint, from[i] * 10, moved, i * 10, 10);
          }
          hint = moved;
        }
        Tensor image = blankImages ? Tensor.zeros(DType.F32, ds.features().shape()) : ds.features().share();
        return new MultiDataSet(new Tensor[] {image, Tensor.from(hint, n, 10)}, new Tensor[] {ds.labels().share()});
      }
    }

    @Override
    public void reset() {
      in.reset();
      random = new Random(seed);
    }

    @Override
    public void close() {
      in.close();
    }
  }

  public static void main(String[] args) throws Exception {
    int epochs = 1;
    int batch = 64;
    double lr = 0.001;
    double hintAccuracy = 0.7;
    int threads = 0;
    long seed = 123;
    int maxExamples = 0;
    int maxTestExamples = 0;
    boolean check = false;
    Path data = null;
    for (int i = 0; i < args.length; ++i) {
      String a = args[i];
      if (a.equals("--check")) {
        check = true;
        continue;
      }
      if (a.equals("--help")) {
        usage(null);
      }
      String v = i + 1 < args.length ? args[++i] : null;
      if (v == null) {
        usage("missing value after " + a);
      }
      switch (a) {
        case "--epochs": epochs = Integer.parseInt(v); break;
        case "--batch": batch = Integer.parseInt(v); break;
        case "--lr": lr = Double.parseDouble(v); break;
        case "--hint-accuracy": hintAccuracy = Double.parseDouble(v); break;
        case "--threads": threads = Integer.parseInt(v); break;
        case "--seed": seed = Long.parseLong(v); break;
        case "--max-examples": maxExamples = Integer.parseInt(v); break;
        case "--max-test-examples": maxTestExamples = Integer.parseInt(v); break;
        case "--data": data = Path.of(v); break;
        default: usage("unknown option " + a);
      }
    }
    if (epochs < 1 || batch < 1 || !(hintAccuracy >= 0 && hintAccuracy <= 1)) {
      usage("--epochs and --batch must be positive, --hint-accuracy in [0, 1]");
    }
    if (threads > 0) {
      Ndrt.setConfig("cpu.threads", Integer.toString(threads));
    }
    MnistDataSetIterator trainData;
    MnistDataSetIterator testData;
    try {
      trainData = mnist(data, batch, seed, true, maxExamples);
      testData = mnist(data, batch, seed, false, maxTestExamples);
    } catch (IOException e) {
      System.err.println("TwoInputMnist: MNIST is not available: " + e.getMessage());
      System.exit(77);
      return;
    }
    System.out.printf(Locale.ROOT, "ndrt %s | cpu threads %s%n", Ndrt.version(), Ndrt.config("cpu.threads"));
    CollectScoresListener scores = new CollectScoresListener();
    double blank;
    try (MultiDataSetIterator train = new WithHints(trainData, hintAccuracy, seed, false, false);
         ComputationGraph net = new ComputationGraph(network(seed, lr))) {
      net.init();
      System.out.printf(Locale.ROOT, "two inputs (image %s, hint %s) merged: %d parameters; train %d, test %d digits, batch"
          + " %d, hints right %.0f%% of the time%n", net.getConfiguration().typeOf("image"),
          net.getConfiguration().typeOf("hint"), net.numParams(), trainData.numExamples(), testData.numExamples(), batch,
          100 * hintAccuracy);
      ProgressBarListener progress = new ProgressBarListener(epochs);
      net.setListeners(progress, scores);
      double seconds = 0;
      for (int e = 0; e < epochs; ++e) {
        net.fit(train);
        seconds += progress.lastEpochSeconds();
        System.out.printf(Locale.ROOT, "epoch %d: test accuracy %.4f%n", e + 1, accuracy(net, testData, hintAccuracy,
            seed, false, false));
      }
      double both = accuracy(net, testData, hintAccuracy, seed, false, false);
      double shuffled = accuracy(net, testData, hintAccuracy, seed, true, false);
      blank = accuracy(net, testData, hintAccuracy, seed, false, true);
      System.out.printf(Locale.ROOT, "training: %.1f s for %d epochs%n", seconds, epochs);
      System.out.printf(Locale.ROOT, "test accuracy: image + hint %.4f | hints shuffled between examples %.4f |"
          + " blank images (hint only; the hint alone is right %.2f of the time) %.4f%n", both, shuffled, hintAccuracy,
          blank);
    }
    if (check) {
      boolean fell = ResNetMnist.scoreFell(scores.scoreValues());
      boolean hintUsed = blank > 0.2;
      System.out.printf(Locale.ROOT, "check: blank-image accuracy %.4f %s%n", blank,
          hintUsed ? "above 0.2, ok" : "not above 0.2, FAILED");
      if (!fell || !hintUsed) {
        System.exit(1);
      }
    }
  }

  private static MnistDataSetIterator mnist(Path data, int batch, long seed, boolean train, int max) throws IOException {
    MnistDataSetIterator.Builder b = MnistDataSetIterator.builder().batchSize(batch).seed(seed).train(train);
    if (data != null) {
      b.dataDir(data);
    }
    if (max > 0) {
      b.numExamples(max);
    }
    return b.build();
  }

  /** Accuracy over the test part with hints drawn from seed + 1 (not the training stream). */
  private static double accuracy(ComputationGraph net, MnistDataSetIterator test, double hintAccuracy, long seed,
      boolean shuffleHints, boolean blankImages) {
    test.reset();
    WithHints it = new WithHints(test, hintAccuracy, seed + 1, shuffleHints, blankImages);
    Evaluation eval = net.evaluate(it);
    return eval.accuracy();
  }

  private static void usage(String error) {
    if (error != null) {
      System.err.println("TwoInputMnist: " + error);
    }
    System.err.println("usage: TwoInputMnist [--epochs 1] [--batch 64] [--lr 0.001] [--hint-accuracy 0.7] [--threads T]"
        + " [--seed 123] [--data DIR] [--max-examples N] [--max-test-examples N] [--check]");
    System.exit(error == null ? 0 : 2);
  }
}
