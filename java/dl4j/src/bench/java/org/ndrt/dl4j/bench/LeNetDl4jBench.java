package org.ndrt.dl4j.bench;

// LeNet on MNIST written against Deeplearning4j 1.0.0-M2.1's API only (the network of Deeplearning4j's
// LeNetMNIST quickstart): java/dl4j/bench.sh compiles this one source once against Deeplearning4j +
// ND4J (nd4j-native) and once against ndrt's drop-ins (ndrt-dl4j, ndrt-nd4j, ndrt-datavec) and runs
// both. No import or call here is ndrt's.
//
//   LeNetDl4jBench [--label L] [--warmup 20] [--iters 300] [--batch 64] [--seed 123] [--data-seed 123]
//                  [--epochs 0] [--conf-out FILE] [--conf-in FILE] [--json-only]
//
// Speed: the first warmup+iters training minibatches of MnistDataSetIterator(batch, true, dataSeed)
// are read into memory first; then net.fit(DataSet) over the first warmup of them (not timed) and
// over the next iters (timed, from the first fit to net.score() after the last); images/s =
// iters * batch / seconds. Accuracy: the network so trained (warmup + iters steps) evaluated on the
// 10,000 test digits; with --epochs E > 0 also a fresh network of the same configuration trained E
// epochs with net.fit(trainIterator) (as the quickstart does) and evaluated. One JSON line on stdout.
// Configuration JSON: --conf-out writes conf.toJson(); --conf-in reads a JSON written by the other
// implementation with MultiLayerConfiguration.fromJson, builds a network from it and reports whether
// that worked and whether it has as many parameters as this side's own ("conf_in" in the line).
// --json-only stops after the configuration part.
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.deeplearning4j.datasets.iterator.impl.MnistDataSetIterator;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.lossfunctions.LossFunctions;

public class LeNetDl4jBench {
  public static void main(String[] args) throws Exception {
    String label = "?";
    int warmup = 20, iters = 300, batch = 64, seed = 123, dataSeed = 123, epochs = 0;
    String confOut = null, confIn = null;
    boolean jsonOnly = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--label": label = args[++i]; break;
        case "--warmup": warmup = Integer.parseInt(args[++i]); break;
        case "--iters": iters = Integer.parseInt(args[++i]); break;
        case "--batch": batch = Integer.parseInt(args[++i]); break;
        case "--seed": seed = Integer.parseInt(args[++i]); break;
        case "--data-seed": dataSeed = Integer.parseInt(args[++i]); break;
        case "--epochs": epochs = Integer.parseInt(args[++i]); break;
        case "--conf-out": confOut = args[++i]; break;
        case "--conf-in": confIn = args[++i]; break;
        case "--json-only": jsonOnly = true; break;
        default: throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    StringBuilder out = new StringBuilder();
    out.append("{\"label\":\"").append(label).append('"');

    MultiLayerConfiguration conf = lenet(seed);
    String json = conf.toJson();
    if (confOut != null) {
      Files.write(Paths.get(confOut), json.getBytes(StandardCharsets.UTF_8));
    }
    out.append(",\"conf_roundtrip\":").append(MultiLayerConfiguration.fromJson(json).equals(conf));
    if (confIn != null) {
      out.append(",\"conf_in\":\"").append(esc(readOther(confIn, conf))).append('"');
    }
    if (jsonOnly) {
      System.out.println(out.append('}'));
      return;
    }

    DataSetIterator test = new MnistDataSetIterator(batch, false, dataSeed);
    if (warmup + iters > 0) {
      speed(conf, batch, warmup, iters, dataSeed, test, out);
    }
    if (epochs > 0) {
      MultiLayerNetwork fresh = new MultiLayerNetwork(lenet(seed));
      fresh.init();
      DataSetIterator epochTrain = new MnistDataSetIterator(batch, true, dataSeed);
      long f0 = System.nanoTime();
      fresh.fit(epochTrain, epochs);
      double fitSeconds = (System.nanoTime() - f0) / 1e9;
      test.reset();
      Evaluation epochEval = fresh.evaluate(test);
      out.append(",\"epochs\":").append(epochs).append(",\"epoch_seconds\":").append(fmt(fitSeconds / epochs))
          .append(",\"epoch_test_accuracy\":").append(fmt(epochEval.accuracy()));
    }
    System.out.println(out.append('}'));
  }

  /** The timed training steps and the accuracy after them. */
  static void speed(MultiLayerConfiguration conf, int batch, int warmup, int iters, int dataSeed, DataSetIterator test,
      StringBuilder out) throws IOException {
    // Minibatches read first, so the timed loop is training only.
    DataSetIterator train = new MnistDataSetIterator(batch, true, dataSeed);
    List<DataSet> batches = new ArrayList<>();
    while (batches.size() < warmup + iters) {
      if (!train.hasNext()) {
        train.reset();
      }
      DataSet ds = train.next();
      if (ds.numExamples() == batch) {
        batches.add(ds);
      }
    }
    MultiLayerNetwork net = new MultiLayerNetwork(conf);
    net.init();
    for (int i = 0; i < warmup; i++) {
      net.fit(batches.get(i));
    }
    double warmScore = net.score();
    long t0 = System.nanoTime();
    for (int i = warmup; i < warmup + iters; i++) {
      net.fit(batches.get(i));
    }
    double score = net.score();
    double seconds = (System.nanoTime() - t0) / 1e9;
    batches.clear();
    test.reset();
    long e0 = System.nanoTime();
    Evaluation eval = net.evaluate(test);
    double evalSeconds = (System.nanoTime() - e0) / 1e9;
    out.append(",\"batch\":").append(batch).append(",\"warmup\":").append(warmup).append(",\"iters\":").append(iters)
        .append(",\"seconds\":").append(fmt(seconds)).append(",\"img_per_s\":").append(fmt(iters * (double) batch / seconds))
        .append(",\"score_after_warmup\":").append(fmt(warmScore)).append(",\"score\":").append(fmt(score))
        .append(",\"params\":").append(net.numParams())
        .append(",\"test_accuracy\":").append(fmt(eval.accuracy())).append(",\"eval_seconds\":").append(fmt(evalSeconds));
  }

  /** Deeplearning4j's LeNetMNIST quickstart network. */
  static MultiLayerConfiguration lenet(int seed) {
    int nChannels = 1;
    int outputNum = 10;
    return new NeuralNetConfiguration.Builder()
        .seed(seed)
        .l2(0.0005)
        .weightInit(WeightInit.XAVIER)
        .updater(new Nesterovs(0.01, 0.9))
        .list()
        .layer(new ConvolutionLayer.Builder(5, 5)
            .nIn(nChannels)
            .stride(1, 1)
            .nOut(20)
            .activation(Activation.IDENTITY)
            .build())
        .layer(new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX)
            .kernelSize(2, 2)
            .stride(2, 2)
            .build())
        .layer(new ConvolutionLayer.Builder(5, 5)
            .stride(1, 1)
            .nOut(50)
            .activation(Activation.IDENTITY)
            .build())
        .layer(new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX)
            .kernelSize(2, 2)
            .stride(2, 2)
            .build())
        .layer(new DenseLayer.Builder().activation(Activation.RELU)
            .nOut(500).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.NEGATIVELOGLIKELIHOOD)
            .nOut(outputNum)
            .activation(Activation.SOFTMAX)
            .build())
        .setInputType(InputType.convolutionalFlat(28, 28, 1))
        .build();
  }

  /** What became of the other implementation's JSON here. */
  static String readOther(String path, MultiLayerConfiguration own) {
    String other;
    try {
      other = new String(Files.readAllBytes(Paths.get(path)), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "unreadable: " + e;
    }
    MultiLayerConfiguration read;
    try {
      read = MultiLayerConfiguration.fromJson(other);
    } catch (Throwable t) {
      return "refused by fromJson: " + oneLine(t);
    }
    try {
      MultiLayerNetwork a = new MultiLayerNetwork(read);
      a.init();
      MultiLayerNetwork b = new MultiLayerNetwork(own);
      b.init();
      return (a.numParams() == b.numParams() ? "accepted" : "accepted, but " + a.numParams() + " parameters against "
          + b.numParams()) + (read.getConfs().size() == own.getConfs().size() ? "" : ", " + read.getConfs().size()
          + " layers against " + own.getConfs().size());
    } catch (Throwable t) {
      return "read, but the network does not initialise: " + oneLine(t);
    }
  }

  static String oneLine(Throwable t) {
    String m = t.getClass().getName() + ": " + t.getMessage();
    m = m.replaceAll("\\s+", " ");
    return m.length() > 300 ? m.substring(0, 300) + "..." : m;
  }

  static String esc(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"");
  }

  static String fmt(double v) {
    return String.format(Locale.ROOT, "%.6g", v);
  }
}
