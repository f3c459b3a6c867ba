package org.ndrt.examples;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import org.ndrt.Ndrt;
import org.ndrt.data.AsyncDataSetIterator;
import org.ndrt.data.DataSetIterator;
import org.ndrt.data.MnistDataSetIterator;
import org.ndrt.eval.Evaluation;
import org.ndrt.nn.ComputationGraph;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.ComputationGraphConfiguration;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.WeightInit;
import org.ndrt.nn.conf.graph.ElementWiseVertex;
import org.ndrt.nn.conf.layers.ActivationLayer;
import org.ndrt.nn.conf.layers.BatchNormalization;
import org.ndrt.nn.conf.layers.ConvMode;
import org.ndrt.nn.conf.layers.ConvolutionLayer;
import org.ndrt.nn.conf.layers.GlobalPoolingLayer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.conf.layers.PoolingType;
import org.ndrt.nn.listeners.CollectScoresListener;
import org.ndrt.nn.listeners.ProgressBarListener;
import org.ndrt.nn.updater.Adam;

/**
 * A small ResNet on MNIST, built as a {@link ComputationGraph}: a stem (conv 3x3 -> batch norm ->
 * ReLU), then {@code stages} stages of {@code blocks} residual blocks each (conv 3x3 'Same' -> BN ->
 * ReLU -> conv 3x3 -> BN, added to the block's input by an ElementWiseVertex, then ReLU); each stage
 * after the first doubles the channels and halves the image with a stride-2 first convolution, its
 * skip path a 1x1 stride-2 convolution + BN (the projection). Global average pooling and a softmax
 * output with NLL; He (RELU) init, Adam. Trains on MNIST's 60,000 training digits (reshuffled every
 * epoch) and evaluates on the 10,000 test digits after every epoch.
 *
 * <pre>
 * java -cp ndrt.jar org.ndrt.examples.ResNetMnist [--epochs 3] [--batch 128] [--lr 0.002]
 *      [--lr-drop-epoch 3] [--lr-drop 0.1] [--width 32] [--stages 3] [--blocks 1] [--threads T]
 *      [--seed 123] [--data DIR] [--save FILE] [--max-examples N] [--max-test-examples N] [--check]
 * </pre>
 *
 * <p>From epoch {@code --lr-drop-epoch} on (counted from 1) the learning rate is {@code --lr} times
 * {@code --lr-drop} ({@link #withLearningRate}).
 *
 * <p>{@code --max-examples} / {@code --max-test-examples} cap the train and test parts (a short
 * run); {@code --check} exits 1 unless the mean loss of the last fifth of the minibatches is below
 * 0.6 of the first fifth's. Exits 77 when MNIST cannot be had (no copy and no network).
 */
public final class ResNetMnist {
  private ResNetMnist() {}

  /** The graph described above; the vertices are named stem_*, s{stage}b{block}_*, pool, out. */
  public static ComputationGraphConfiguration resnet(long seed, int width, int stages, int blocks, double lr) {
    ComputationGraphConfiguration.GraphBuilder g = new NeuralNetConfiguration.Builder()
        .seed(seed)
        .weightInit(WeightInit.RELU)
        .updater(new Adam(lr))
        .graphBuilder()
        .addInputs("in")
        .setInputTypes(InputType.convolutionalFlat(28, 28, 1));
    String x = convBn(g, "stem", "in", width, 3, 1);
    x = relu(g, "stem_relu", x);
    for (int s = 0; s < stages; ++s) {
      int c = width << s;
      for (int b = 0; b < blocks; ++b) {
        int stride = s > 0 && b == 0 ? 2 : 1;
        String p = "s" + s + "b" + b;
        String y = relu(g, p + "_relu1", convBn(g, p + "_a", x, c, 3, stride));
        y = convBn(g, p + "_b", y, c, 3, 1);
        // The shape changes at a stage's first block: a 1x1 projection of the input to add.
        String skip = stride == 1 ? x : convBn(g, p + "_proj", x, c, 1, stride);
        g.addVertex(p + "_add", new ElementWiseVertex(ElementWiseVertex.Op.Add), y, skip);
        x = relu(g, p + "_relu2", p + "_add");
      }
    }
    g.addLayer("pool", new GlobalPoolingLayer.Builder(PoolingType.AVG).build(), x)
        .addLayer("out", new OutputLayer.Builder(LossFunction.NEGATIVELOGLIKELIHOOD).nOut(10)
            .activation(Activation.SOFTMAX).weightInit(WeightInit.XAVIER).build(), "pool")
        .setOutputs("out");
    return g.build();
  }

  /** conv k x k ('Same', identity activation) -> batch norm; returns the BN's name. */
  private static String convBn(ComputationGraphConfiguration.GraphBuilder g, String name, String in, int c, int k,
      int stride) {
    g.addLayer(name + "_conv", new ConvolutionLayer.Builder(k, k).stride(stride, stride).nOut(c)
        .convolutionMode(ConvMode.Same).activation(Activation.IDENTITY).build(), in);
    g.addLayer(name + "_bn", new BatchNormalization.Builder().build(), name + "_conv");
    return name + "_bn";
  }

  private static String relu(ComputationGraphConfiguration.GraphBuilder g, String name, String in) {
    g.addLayer(name, new ActivationLayer.Builder(Activation.RELU).build(), in);
    return name;
  }

  public static void main(String[] args) throws Exception {
    int epochs = 3; // test accuracy 0.9952 after 3 (README, "Graph demos")
    int batch = 128;
    double lr = 0.002;
    int dropEpoch = 3;
    double drop = 0.1;
    int width = 32; // 16 levels off at 0.9924-0.9931
    int stages = 3;
    int blocks = 1;
    int threads = 0;
    long seed = 123;
    int maxExamples = 0;
    int maxTestExamples = 0;
    boolean check = false;
    Path data = null;
    File save = null;
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
        case "--lr-drop-epoch": dropEpoch = Integer.parseInt(v); break;
        case "--lr-drop": drop = Double.parseDouble(v); break;
        case "--width": width = Integer.parseInt(v); break;
        case "--stages": stages = Integer.parseInt(v); break;
        case "--blocks": blocks = Integer.parseInt(v); break;
        case "--threads": threads = Integer.parseInt(v); break;
        case "--seed": seed = Long.parseLong(v); break;
        case "--max-examples": maxExamples = Integer.parseInt(v); break;
        case "--max-test-examples": maxTestExamples = Integer.parseInt(v); break;
        case "--data": data = Path.of(v); break;
        case "--save": save = new File(v); break;
        default: usage("unknown option " + a);
      }
    }
    if (epochs < 1 || batch < 1 || width < 1 || stages < 1 || blocks < 1) {
      usage("--epochs, --batch, --width, --stages and --blocks must be positive");
    }
    if (threads > 0) {
      Ndrt.setConfig("cpu.threads", Integer.toString(threads));
    }
    MnistDataSetIterator.Builder b = MnistDataSetIterator.builder().batchSize(batch).seed(seed);
    if (data != null) {
      b.dataDir(data);
    }
    MnistDataSetIterator trainData;
    MnistDataSetIterator testData;
    try {
      MnistDataSetIterator.Builder tb = MnistDataSetIterator.builder().batchSize(batch).seed(seed);
      if (data != null) {
        tb.dataDir(data);
      }
      trainData = (maxExamples > 0 ? b.numExamples(maxExamples) : b).train(true).build();
      testData = (maxTestExamples > 0 ? tb.numExamples(maxTestExamples) : tb).train(false).build();
    } catch (IOException e) {
      System.err.println("ResNetMnist: MNIST is not available: " + e.getMessage());
      System.exit(77);
      return;
    }
    System.out.printf(Locale.ROOT, "ndrt %s | cpu threads %s%n", Ndrt.version(), Ndrt.config("cpu.threads"));
    CollectScoresListener scores = new CollectScoresListener();
    ComputationGraph net = new ComputationGraph(resnet(seed, width, stages, blocks, lr));
    try (DataSetIterator train = new AsyncDataSetIterator(trainData, 4);
         DataSetIterator test = new AsyncDataSetIterator(testData, 4)) {
      net.init();
      System.out.printf(Locale.ROOT, "ResNet: width %d, %d stages x %d blocks, %d parameters; train %d, test %d digits,"
          + " batch %d, Adam %s%s%n", width, stages, blocks, net.numParams(), train.numExamples(), test.numExamples(),
          batch, lr, dropEpoch <= epochs ? ", x " + drop + " from epoch " + dropEpoch : "");
      ProgressBarListener progress = new ProgressBarListener(epochs);
      net.setListeners(progress, scores);
      Evaluation eval = null;
      double imagesPerSecond = 0;
      double seconds = 0;
      for (int e = 0; e < epochs; ++e) {
        if (e + 1 == dropEpoch && e > 0) {
          net = withLearningRate(net, resnet(seed, width, stages, blocks, lr * drop));
        }
        net.fit(train);
        imagesPerSecond += progress.lastEpochImagesPerSecond();
        seconds += progress.lastEpochSeconds();
        eval = net.evaluate(test);
        System.out.printf(Locale.ROOT, "epoch %d: test accuracy %.4f, F1 %.4f%n", e + 1, eval.accuracy(), eval.f1());
      }
      System.out.println();
      System.out.println(eval.stats());
      System.out.printf(Locale.ROOT, "training: %.1f s, %.0f images/s (mean over %d epochs)%n", seconds,
          imagesPerSecond / epochs, epochs);
      System.out.printf(Locale.ROOT, "final test accuracy: %.4f%n", eval.accuracy());
      if (save != null) {
        net.save(save);
        System.out.println("saved to " + save);
      }
    } finally {
      net.close();
    }
    if (check && !scoreFell(scores.scoreValues())) {
      System.exit(1);
    }
  }

  /**
   * A new graph of {@code conf} (the same network at another learning rate) that goes on from {@code
   * old}'s training state: parameters with the batch-norm statistics, Adam's moments, the step, iteration
   * and epoch counts, the listeners; {@code old} is closed. The learning-rate drop: org.ndrt.nn has no
   * learning-rate schedules yet.
   */
  static ComputationGraph withLearningRate(ComputationGraph old, ComputationGraphConfiguration conf) {
    ComputationGraph g = new ComputationGraph(conf);
    g.init();
    g.setParams(old.params());
    g.setUpdaterState(old.updaterState());
    g.setUpdaterStepCount(old.getUpdaterStepCount());
    g.setIterationCount(old.getIterationCount());
    while (g.getEpochCount() < old.getEpochCount()) {
      g.incrementEpochCount();
    }
    g.setListeners(old.getListeners());
    old.close();
    return g;
  }

  /** The mean loss of the last fifth of the minibatches against the first fifth's (--check). */
  static boolean scoreFell(double[] s) {
    int k = Math.max(1, s.length / 5);
    double first = 0;
    double last = 0;
    for (int i = 0; i < k; ++i) {
      first += s[i] / k;
      last += s[s.length - 1 - i] / k;
    }
    boolean ok = s.length >= 5 && Double.isFinite(last) && last < 0.6 * first;
    System.out.printf(Locale.ROOT, "check: mean loss of the first %d minibatches %.4f, of the last %d %.4f: %s%n", k,
        first, k, last, ok ? "fell below 0.6x, ok" : "did not fall below 0.6x, FAILED");
    return ok;
  }

  private static void usage(String error) {
    if (error != null) {
      System.err.println("ResNetMnist: " + error);
    }
    System.err.println("usage: ResNetMnist [--epochs 3] [--batch 128] [--lr 0.002] [--lr-drop-epoch 3] [--lr-drop 0.1]"
        + " [--width 32] [--stages 3] [--blocks 1]"
        + " [--threads T] [--seed 123] [--data DIR] [--save FILE] [--max-examples N] [--max-test-examples N] [--check]");
    System.exit(error == null ? 0 : 2);
  }
}
