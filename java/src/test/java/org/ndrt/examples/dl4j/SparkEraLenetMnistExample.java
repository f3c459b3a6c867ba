package org.ndrt.examples.dl4j;

// A Deeplearning4j 0.4-0.9 era program, moved to ndrt by changing only the imports; each line says
// which Deeplearning4j import it replaces. The slf4j imports stay (slf4j is not Deeplearning4j).
import org.ndrt.data.DataSet;                           // org.nd4j.linalg.dataset.DataSet
import org.ndrt.data.DataSetIterator;                   // org.nd4j.linalg.dataset.api.iterator.DataSetIterator
import org.ndrt.data.MnistDataSetIterator;              // org.deeplearning4j.datasets.iterator.impl.MnistDataSetIterator
import org.ndrt.eval.Evaluation;                        // org.deeplearning4j.eval.Evaluation
import org.ndrt.nn.MultiLayerNetwork;                   // org.deeplearning4j.nn.multilayer.MultiLayerNetwork
import org.ndrt.nn.api.OptimizationAlgorithm;           // org.deeplearning4j.nn.api.OptimizationAlgorithm
import org.ndrt.nn.conf.LossFunctions;                  // org.nd4j.linalg.lossfunctions.LossFunctions
import org.ndrt.nn.conf.MultiLayerConfiguration;        // org.deeplearning4j.nn.conf.MultiLayerConfiguration
import org.ndrt.nn.conf.NeuralNetConfiguration;         // org.deeplearning4j.nn.conf.NeuralNetConfiguration
import org.ndrt.nn.conf.Updater;                        // org.deeplearning4j.nn.conf.Updater
import org.ndrt.nn.conf.WeightInit;                     // org.deeplearning4j.nn.weights.WeightInit
import org.ndrt.nn.conf.layers.ConvolutionLayer;        // org.deeplearning4j.nn.conf.layers.ConvolutionLayer
import org.ndrt.nn.conf.layers.DenseLayer;              // org.deeplearning4j.nn.conf.layers.DenseLayer
import org.ndrt.nn.conf.layers.OutputLayer;             // org.deeplearning4j.nn.conf.layers.OutputLayer
import org.ndrt.nn.conf.layers.SubsamplingLayer;        // org.deeplearning4j.nn.conf.layers.SubsamplingLayer
import org.ndrt.nn.conf.layers.setup.ConvolutionLayerSetup; // org.deeplearning4j.nn.conf.layers.setup.ConvolutionLayerSetup
import org.ndrt.parallel.ParallelWrapper;               // org.deeplearning4j.parallelism.ParallelWrapper
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The convolutional MNIST network of Deeplearning4j's Spark examples (dl4j-spark-cdh5-examples,
 * {@code MnistExample}), written in that era's API: {@code .iterations(1)}, {@code
 * .regularization(true).l2(0.0005)}, {@code .learningRate(0.1)} with {@code .updater(Updater.ADAGRAD)},
 * string activations, a weight init per layer, {@code .list(6)}, {@code SubsamplingLayer.Builder(MAX,
 * new int[] {2, 2})}, {@code .backprop(true).pretrain(false)} on a {@code
 * MultiLayerConfiguration.Builder}, {@code new ConvolutionLayerSetup(builder, 28, 28, 1)}, {@code new
 * Evaluation()} fed with {@code net.output(ds.getFeatureMatrix(), false)}. ndrt accepts each
 * deprecated form and says once which modern form replaces it.
 *
 * <p>Not kept: Spark. The example averaged the parameters of its local executors after every
 * minibatch ({@code SparkConf}, {@code JavaSparkContext}, {@code sc.parallelize(...)}, {@code new
 * SparkDl4jMultiLayer(sc, net)}, {@code sparkNetwork.fitDataSet(rdd)}); on one machine that is a
 * ParallelWrapper of {@code nCores} workers averaging every minibatch, which is what this program
 * runs. It reads the built-in training and test sets instead of splitting 60,000 single-example
 * DataSets collected in a list, and holds no {@code INDArray} variable (ndrt's arrays are {@code
 * org.ndrt.Tensor}; the ND4J array API is not there yet). The comments and log messages are ndrt's
 * own.
 *
 * <p>The test {@code java_dl4j_SparkEraLenetMnistExample} runs it with {@code
 * -Dndrt.mnist.maxExamples=384}; without it, it trains 5 epochs on the 60,000 training digits.
 */
public class SparkEraLenetMnistExample {
    private static final Logger log = LoggerFactory.getLogger(SparkEraLenetMnistExample.class);

    public static void main(String[] args) throws Exception {
        int nCores = 2;         // the Spark example's local executors: here the wrapper's workers
        int nChannels = 1;
        int outputNum = 10;
        int batchSize = 64;
        int nEpochs = 5;
        int iterations = 1;
        int seed = 123;

        log.info("Loading MNIST");
        DataSetIterator mnistTrain = new MnistDataSetIterator(batchSize, true, 12345);
        DataSetIterator mnistTest = new MnistDataSetIterator(batchSize, false, 12345);

        log.info("Configuring the network");
        MultiLayerConfiguration.Builder builder = new NeuralNetConfiguration.Builder()
                .seed(seed)
                .iterations(iterations)
                .regularization(true).l2(0.0005)
                .learningRate(0.1)
                .optimizationAlgo(OptimizationAlgorithm.STOCHASTIC_GRADIENT_DESCENT)
                .updater(Updater.ADAGRAD)
                .list(6)
                .layer(0, new ConvolutionLayer.Builder(5, 5)
                        .nIn(nChannels)
                        .stride(1, 1)
                        .nOut(20)
                        .weightInit(WeightInit.XAVIER)
                        .activation("relu")
                        .build())
                .layer(1, new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX, new int[] {2, 2})
                        .build())
                .layer(2, new ConvolutionLayer.Builder(5, 5)
                        .nIn(20)
                        .nOut(50)
                        .stride(2, 2)     // 12x12 in, 4x4 out
                        .weightInit(WeightInit.XAVIER)
                        .activation("relu")
                        .build())
                .layer(3, new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX, new int[] {2, 2})
                        .build())
                .layer(4, new DenseLayer.Builder().activation("relu")
                        .weightInit(WeightInit.XAVIER)
                        .nOut(200).build())
                .layer(5, new OutputLayer.Builder(LossFunctions.LossFunction.NEGATIVELOGLIKELIHOOD)
                        .nOut(outputNum)
                        .weightInit(WeightInit.XAVIER)
                        .activation("softmax")
                        .build())
                .backprop(true).pretrain(false);
        new ConvolutionLayerSetup(builder, 28, 28, 1); // the image size, so every nIn is known

        MultiLayerConfiguration conf = builder.build();
        MultiLayerNetwork net = new MultiLayerNetwork(conf);
        net.init();

        // In place of the Spark master: parameters averaged over the workers after every minibatch.
        ParallelWrapper wrapper = new ParallelWrapper.Builder(net)
                .workers(nCores)
                .averagingFrequency(1)
                .build();

        log.info("Training");
        for (int i = 0; i < nEpochs; i++) {
            wrapper.fit(mnistTrain);
            log.info("Epoch {} done", i);

            Evaluation eval = new Evaluation();
            while (mnistTest.hasNext()) {
                DataSet ds = mnistTest.next();
                eval.eval(ds.getLabels(), net.output(ds.getFeatureMatrix(), false));
            }
            mnistTest.reset();
            log.info(eval.stats());
        }
        log.info("Finished");
    }
}
