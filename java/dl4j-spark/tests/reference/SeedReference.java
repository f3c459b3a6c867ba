// The seed's program (../seed/SparkMnistLeNet.java, Deeplearning4j 0.x) rewritten with Deeplearning4j
// 1.0.0-M2.1's API only, so the same source runs on real Deeplearning4j (+ its dl4j-spark) and on ndrt's
// drop-ins: same layers, seeds, data order and training master options; AdaGrad(0.1) and l2(5e-4) replace
// learningRate/regularization/Updater.ADAGRAD, setInputType replaces ConvolutionLayerSetup.
//   SeedReference [--master local[2]] [--epochs 5] [--local] [--side name]
// --local trains the same network in this process without Spark (net.fit over the 1875 minibatches of 32,
// reshuffled each epoch). One JSON line per epoch: test accuracy and the epoch's fit time (evaluation apart).
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.deeplearning4j.datasets.iterator.impl.MnistDataSetIterator;
import org.deeplearning4j.nn.api.OptimizationAlgorithm;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.deeplearning4j.spark.impl.multilayer.SparkDl4jMultiLayer;
import org.deeplearning4j.spark.impl.paramavg.ParameterAveragingTrainingMaster;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.learning.config.AdaGrad;
import org.nd4j.linalg.lossfunctions.LossFunctions;

public class SeedReference {
  public static void main(String[] args) throws Exception {
    String master = "local[*]";
    String side = "?";
    int nEpochs = 5;
    boolean local = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--master": master = args[++i]; break;
        case "--epochs": nEpochs = Integer.parseInt(args[++i]); break;
        case "--local": local = true; break;
        case "--side": side = args[++i]; break;
        default: throw new IllegalArgumentException("unknown option " + args[i]
            + " (use --master M, --epochs N, --local, --side NAME)");
      }
    }
    if (nEpochs < 1) throw new IllegalArgumentException("--epochs must be >= 1, got " + nEpochs);

    int examplesPerDataSetObject = 32;
    DataSetIterator mnistTrain = new MnistDataSetIterator(32, true, 12345);
    DataSetIterator mnistTest = new MnistDataSetIterator(32, false, 12345);
    List<DataSet> trainData = new ArrayList<>();
    List<DataSet> testData = new ArrayList<>();
    while (mnistTrain.hasNext()) trainData.add(mnistTrain.next());
    Random shuffle = new Random(12345);
    Collections.shuffle(trainData, shuffle);
    while (mnistTest.hasNext()) testData.add(mnistTest.next());
    int nTrain = 0;
    for (DataSet d : trainData) nTrain += d.numExamples();

    int nChannels = 1;
    int outputNum = 10;
    int seed = 123;
    MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder()
        .seed(seed)
        .l2(0.0005)
        .optimizationAlgo(OptimizationAlgorithm.STOCHASTIC_GRADIENT_DESCENT)
        .updater(new AdaGrad(0.1))
        .list()
        .layer(0, new ConvolutionLayer.Builder(5, 5).nIn(nChannels).stride(1, 1).nOut(20)
            .weightInit(WeightInit.XAVIER).activation(Activation.RELU).build())
        .layer(1, new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).build())
        .layer(2, new ConvolutionLayer.Builder(5, 5).nIn(20).nOut(50).stride(2, 2)
            .weightInit(WeightInit.XAVIER).activation(Activation.RELU).build())
        .layer(3, new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).build())
        .layer(4, new DenseLayer.Builder().activation(Activation.RELU).weightInit(WeightInit.XAVIER)
            .nOut(200).build())
        .layer(5, new OutputLayer.Builder(LossFunctions.LossFunction.NEGATIVELOGLIKELIHOOD).nOut(outputNum)
            .weightInit(WeightInit.XAVIER).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.convolutionalFlat(28, 28, 1))
        .build();
    MultiLayerNetwork net = new MultiLayerNetwork(conf);
    net.init();

    String mode = local ? "local" : master;
    if (local) {
      for (int epoch = 1; epoch <= nEpochs; epoch++) {
        if (epoch > 1) Collections.shuffle(trainData, shuffle);
        long t0 = System.nanoTime();
        for (DataSet d : trainData) net.fit(d);
        double seconds = (System.nanoTime() - t0) / 1e9;
        Evaluation ev = new Evaluation(outputNum);
        for (DataSet d : testData) ev.eval(d.getLabels(), net.output(d.getFeatures()));
        report(side, mode, epoch, ev.accuracy(), seconds, nTrain, net.score());
      }
      return;
    }

    SparkConf sparkConf = new SparkConf().setMaster(master).setAppName("MNIST");
    JavaSparkContext sc = new JavaSparkContext(sparkConf);
    try {
      JavaRDD<DataSet> train = sc.parallelize(trainData);
      JavaRDD<DataSet> test = sc.parallelize(testData);
      ParameterAveragingTrainingMaster tm = new ParameterAveragingTrainingMaster.Builder(examplesPerDataSetObject)
          .workerPrefetchNumBatches(0)
          .saveUpdater(true)
          .averagingFrequency(5)
          .batchSizePerWorker(examplesPerDataSetObject)
          .build();
      SparkDl4jMultiLayer sparkNetwork = new SparkDl4jMultiLayer(sc, net, tm);
      for (int epoch = 1; epoch <= nEpochs; epoch++) {
        long t0 = System.nanoTime();
        sparkNetwork.fit(train);
        double seconds = (System.nanoTime() - t0) / 1e9;
        Evaluation ev = sparkNetwork.evaluate(test);
        report(side, mode, epoch, ev.accuracy(), seconds, nTrain, sparkNetwork.getScore());
      }
    } finally {
      sc.stop();
    }
  }

  private static void report(String side, String mode, int epoch, double accuracy, double seconds, int n,
      double score) {
    System.out.printf(java.util.Locale.ROOT,
        "{\"side\":\"%s\",\"mode\":\"%s\",\"epoch\":%d,\"accuracy\":%.4f,\"fit_s\":%.2f,\"img_s\":%.1f,"
            + "\"score\":%.5f}%n", side, mode, epoch, accuracy, seconds, n / seconds, score);
    System.out.flush();
  }
}
