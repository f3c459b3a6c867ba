package org.ndrt.examples.dl4j;

// Deeplearning4j's multi-GPU LeNet, moved to ndrt by changing only the imports; each line says
// which Deeplearning4j import it replaces. The slf4j imports stay (slf4j is not Deeplearning4j).
import org.ndrt.data.DataSetIterator;                   // org.nd4j.linalg.dataset.api.iterator.DataSetIterator
import org.ndrt.data.MnistDataSetIterator;              // org.deeplearning4j.datasets.iterator.impl.MnistDataSetIterator
import org.ndrt.eval.Evaluation;                        // org.deeplearning4j.eval.Evaluation
import org.ndrt.nn.MultiLayerNetwork;                   // org.deeplearning4j.nn.multilayer.MultiLayerNetwork
import org.ndrt.nn.api.OptimizationAlgorithm;           // org.deeplearning4j.nn.api.OptimizationAlgorithm
import org.ndrt.nn.conf.Activation;                     // org.nd4j.linalg.activations.Activation
import org.ndrt.nn.conf.InputType;                      // org.deeplearning4j.nn.conf.inputs.InputType
import org.ndrt.nn.conf.LossFunctions;                  // org.nd4j.linalg.lossfunctions.LossFunctions
import org.ndrt.nn.conf.MultiLayerConfiguration;        // org.deeplearning4j.nn.conf.MultiLayerConfiguration
import org.ndrt.nn.conf.NeuralNetConfiguration;         // org.deeplearning4j.nn.conf.NeuralNetConfiguration
import org.ndrt.nn.conf.Updater;                        // org.deeplearning4j.nn.conf.Updater
import org.ndrt.nn.conf.WeightInit;                     // org.deeplearning4j.nn.weights.WeightInit
import org.ndrt.nn.conf.layers.ConvolutionLayer;        // org.deeplearning4j.nn.conf.layers.ConvolutionLayer
import org.ndrt.nn.conf.layers.DenseLayer;              // org.deeplearning4j.nn.conf.layers.DenseLayer
import org.ndrt.nn.conf.layers.OutputLayer;             // org.deeplearning4j.nn.conf.layers.OutputLayer
import org.ndrt.nn.conf.layers.SubsamplingLayer;        // org.deeplearning4j.nn.conf.layers.SubsamplingLayer
import org.ndrt.nn.listeners.ScoreIterationListener;    // org.deeplearning4j.optimize.listeners.ScoreIterationListener
import org.ndrt.parallel.ParallelWrapper;               // org.deeplearning4j.parallelism.ParallelWrapper
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * LeNet on MNIST trained by ParallelWrapper, written as the multi-GPU example of Deeplearning4j's
 * documentation ("Using Multiple GPUs") writes it: the built-in MNIST iterators with seed 12345, the
 * configuration builder with {@code optimizationAlgo} and the {@code Updater} enum, indexed layers,
 * a ParallelWrapper of 2 workers averaging every 3 minibatches, a ScoreIterationListener set on the
 * model (which the wrapper calls), {@code model.evaluate(test)} and {@code eval.stats()}.
 *
 * <p>Not kept from the documentation's program: the ND4J/CUDA setup lines before the data
 * ({@code DataTypeUtil.setDTypeForContext(DataBuffer.Type.HALF)} and {@code
 * CudaEnvironment.getInstance().getConfiguration()...}), which have no ndrt class (ndrt's forms:
 * {@code .dataType(DType.F16)} on the builder, the {@code cuda.*} configuration keys). The comments
 * and log messages are ndrt's own.
 *
 * <p>The test {@code java_dl4j_MultiGpuLenetMnistExample} runs it with {@code
 * -Dndrt.mnist.maxExamples=384} (3 minibatches an epoch); without it, it trains 10 epochs on the
 * 60,000 training digits.
 */
public class MultiGpuLenetMnistExample {
    private static final Logger log = LoggerFactory.getLogger(MultiGpuLenetMnistExample.class);

    public static void main(String[] args) throws Exception {
        int nChannels = 1;      // grey-scale digits
        int outputNum = 10;     // ten classes
        int batchSize = 128;    // larger minibatches suit several workers
        int nEpochs = 10;
        int seed = 123;

        log.info("Loading MNIST");
        DataSetIterator mnistTrain = new MnistDataSetIterator(batchSize, true, 12345);
        DataSetIterator mnistTest = new MnistDataSetIterator(batchSize, false, 12345);

        log.info("Configuring LeNet");
        MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder()
            .seed(seed)
            .weightInit(WeightInit.XAVIER)
            .optimizationAlgo(OptimizationAlgorithm.STOCHASTIC_GRADIENT_DESCENT)
            .updater(Updater.NESTEROVS)
            .list()
            .layer(0, new ConvolutionLayer.Builder(5, 5)
                .nIn(nChannels)   // input depth: the image's channels
                .stride(1, 1)
                .nOut(20)         // 20 filters
                .activation(Activation.IDENTITY)
                .build())
            .layer(1, new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX)
                .kernelSize(2, 2)
                .stride(2, 2)
                .build())
            .layer(2, new ConvolutionLayer.Builder(5, 5)
                .stride(1, 1)     // nIn comes from the layer before
                .nOut(50)
                .activation(Activation.IDENTITY)
                .build())
            .layer(3, new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX)
                .kernelSize(2, 2)
                .stride(2, 2)
                .build())
            .layer(4, new DenseLayer.Builder().activation(Activation.RELU)
                .nOut(500).build())
            .layer(5, new OutputLayer.Builder(LossFunctions.LossFunction.NEGATIVELOGLIKELIHOOD)
                .nOut(outputNum)
                .activation(Activation.SOFTMAX)
                .build())
            .setInputType(InputType.convolutionalFlat(28, 28, 1)) // rows of 784 pixels seen as 28x28x1
            .build();
        MultiLayerNetwork model = new MultiLayerNetwork(conf);
        model.init();

        // Workers with their own replicas, averaged every 3 minibatches; minibatches queued ahead.
        ParallelWrapper wrapper = new ParallelWrapper.Builder(model)
            .prefetchBuffer(24)
            .workers(2)
            .averagingFrequency(3)
            .reportScoreAfterAveraging(true)
            .build();

        log.info("Training");
        model.setListeners(new ScoreIterationListener(100));
        long start = System.currentTimeMillis();
        for (int i = 0; i < nEpochs; i++) {
            long epochStart = System.currentTimeMillis();
            wrapper.fit(mnistTrain); // the wrapper, not the model, takes the iterator
            log.info("Epoch {} done in {} ms", i, System.currentTimeMillis() - epochStart);
        }
        log.info("Training done in {} ms", System.currentTimeMillis() - start);

        log.info("Evaluating on the test set");
        Evaluation eval = model.evaluate(mnistTest);
        log.info(eval.stats());
        log.info("Finished");
    }
}
