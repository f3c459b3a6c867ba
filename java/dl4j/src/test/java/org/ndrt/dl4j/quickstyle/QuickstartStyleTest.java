package org.ndrt.dl4j.quickstyle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.datavec.api.records.reader.RecordReader;
import org.datavec.api.records.reader.impl.csv.CSVRecordReader;
import org.datavec.api.split.FileSplit;
import org.deeplearning4j.datasets.datavec.RecordReaderDataSetIterator;
import org.deeplearning4j.datasets.iterator.impl.IrisDataSetIterator;
import org.deeplearning4j.datasets.iterator.impl.MnistDataSetIterator;
import org.deeplearning4j.earlystopping.EarlyStoppingConfiguration;
import org.deeplearning4j.earlystopping.EarlyStoppingResult;
import org.deeplearning4j.earlystopping.saver.LocalFileModelSaver;
import org.deeplearning4j.earlystopping.scorecalc.DataSetLossCalculator;
import org.deeplearning4j.earlystopping.termination.MaxEpochsTerminationCondition;
import org.deeplearning4j.earlystopping.termination.MaxTimeIterationTerminationCondition;
import org.deeplearning4j.earlystopping.termination.ScoreImprovementEpochTerminationCondition;
import org.deeplearning4j.earlystopping.trainer.EarlyStoppingTrainer;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.SplitTestAndTrain;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.dataset.api.preprocessor.NormalizerStandardize;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * Programs written as Deeplearning4j's quickstarts are (only Deeplearning4j / ND4J / DataVec names, no
 * org.ndrt call), run end to end on the drop-in with accuracy floors: the same code a user moves over.
 * MNIST parts skip with a message where MNIST is absent ({@code bash packaging/fetch-mnist.sh}).
 */
class QuickstartStyleTest {
  @TempDir Path tmp;

  private static boolean mnistPresent() {
    String dir = System.getenv("NDRT_DATA_DIR");
    Path p = dir != null ? Path.of(dir, "mnist") : Path.of(System.getProperty("user.home"), ".cache", "ndrt", "mnist");
    return Files.isRegularFile(p.resolve("train-images-idx3-ubyte")) || Files.isRegularFile(p.resolve("train-images-idx3-ubyte.gz"));
  }

  /** As MNISTSingleLayer (one hidden layer of 1000), with Adam so that one epoch over the 60000 images is enough. */
  @Test
  void mnistSingleLayerReaches95PercentInOneEpoch() throws Exception {
    assumeTrue(mnistPresent(), "MNIST is absent: run bash packaging/fetch-mnist.sh to include this test");
    DataSetIterator mnistTrain = new MnistDataSetIterator(64, true, 123);
    DataSetIterator mnistTest = new MnistDataSetIterator(64, false, 123);
    MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder()
        .seed(123)
        .updater(new Adam(1e-3))
        .l2(1e-4)
        .list()
        .layer(new DenseLayer.Builder().nIn(784).nOut(1000).activation(Activation.RELU).weightInit(WeightInit.XAVIER).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.NEGATIVELOGLIKELIHOOD)
            .nIn(1000).nOut(10).activation(Activation.SOFTMAX).weightInit(WeightInit.XAVIER).build())
        .build();
    MultiLayerNetwork model = new MultiLayerNetwork(conf);
    model.init();
    model.fit(mnistTrain, 1);
    Evaluation eval = model.evaluate(mnistTest);
    System.out.println(eval.stats());
    assertTrue(eval.accuracy() >= 0.95, "MNIST accuracy after one epoch: " + eval.accuracy());
  }

  /** As IrisClassifier: CSV file, CSVRecordReader, shuffle, 65/35 split, NormalizerStandardize, Evaluation. */
  @Test
  void irisClassifierFromCsvReaches90Percent() throws Exception {
    File csv = tmp.resolve("iris.txt").toFile();
    writeIrisCsv(csv);
    RecordReader recordReader = new CSVRecordReader(0, ',');
    recordReader.initialize(new FileSplit(csv));
    DataSetIterator iterator = new RecordReaderDataSetIterator(recordReader, 150, 4, 3);
    DataSet allData = iterator.next();
    allData.shuffle(42);
    SplitTestAndTrain testAndTrain = allData.splitTestAndTrain(0.65);
    DataSet trainingData = testAndTrain.getTrain();
    DataSet testData = testAndTrain.getTest();
    NormalizerStandardize normalizer = new NormalizerStandardize();
    normalizer.fit(trainingData);
    normalizer.transform(trainingData);
    normalizer.transform(testData);
    MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder()
        .seed(6)
        .activation(Activation.TANH)
        .weightInit(WeightInit.XAVIER)
        .updater(new Sgd(0.1))
        .l2(1e-4)
        .list()
        .layer(new DenseLayer.Builder().nIn(4).nOut(3).build())
        .layer(new DenseLayer.Builder().nIn(3).nOut(3).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.NEGATIVELOGLIKELIHOOD)
            .activation(Activation.SOFTMAX).nIn(3).nOut(3).build())
        .build();
    MultiLayerNetwork model = new MultiLayerNetwork(conf);
    model.init();
    for (int i = 0; i < 1000; i++) {
      model.fit(trainingData);
    }
    Evaluation eval = new Evaluation(3);
    INDArray output = model.output(testData.getFeatures());
    eval.eval(testData.getLabels(), output);
    System.out.println(eval.stats());
    assertTrue(eval.accuracy() >= 0.9, "Iris accuracy: " + eval.accuracy());
  }

  /** As EarlyStoppingMNIST, on Iris: files saved, the best epoch restored, its score the best recorded. */
  @Test
  void earlyStoppingKeepsTheBestModel() throws Exception {
    DataSetIterator train = new IrisDataSetIterator(150, 150);
    DataSet all = train.next();
    all.shuffle(7);
    SplitTestAndTrain split = all.splitTestAndTrain(0.7);
    NormalizerStandardize norm = new NormalizerStandardize();
    norm.fit(split.getTrain());
    norm.transform(split.getTrain());
    norm.transform(split.getTest());
    DataSetIterator trainIt = new org.deeplearning4j.datasets.iterator.utilty.ListDataSetIterator<>(split.getTrain().asList(), 15);
    DataSetIterator testIt = new org.deeplearning4j.datasets.iterator.utilty.ListDataSetIterator<>(split.getTest().asList(), 45);
    MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder()
        .seed(12345)
        .updater(new Adam(0.01))
        .weightInit(WeightInit.XAVIER)
        .list()
        .layer(new DenseLayer.Builder().nIn(4).nOut(10).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.NEGATIVELOGLIKELIHOOD)
            .activation(Activation.SOFTMAX).nIn(10).nOut(3).build())
        .build();
    File dir = tmp.resolve("es").toFile();
    EarlyStoppingConfiguration<MultiLayerNetwork> esConf = new EarlyStoppingConfiguration.Builder<MultiLayerNetwork>()
        .epochTerminationConditions(new MaxEpochsTerminationCondition(40), new ScoreImprovementEpochTerminationCondition(5))
        .iterationTerminationConditions(new MaxTimeIterationTerminationCondition(2, TimeUnit.MINUTES))
        .scoreCalculator(new DataSetLossCalculator(testIt, true))
        .evaluateEveryNEpochs(1)
        .modelSaver(new LocalFileModelSaver(dir.getPath()))
        .build();
    EarlyStoppingTrainer trainer = new EarlyStoppingTrainer(esConf, conf, trainIt);
    EarlyStoppingResult<MultiLayerNetwork> result = trainer.fit();
    System.out.println(result + " " + result.getScoreVsEpoch());
    assertEquals(EarlyStoppingResult.TerminationReason.EpochTerminationCondition, result.getTerminationReason());
    assertTrue(new File(dir, "bestModel.bin").isFile());
    double best = result.getScoreVsEpoch().values().stream().mapToDouble(Double::doubleValue).min().getAsDouble();
    assertEquals(best, result.getBestModelScore(), 0.0);
    assertEquals(best, result.getScoreVsEpoch().get(result.getBestModelEpoch()), 0.0);
    MultiLayerNetwork bestModel = result.getBestModel();
    assertNotNull(bestModel);
    // The restored best model scores what it scored when it was saved.
    assertEquals(best, new DataSetLossCalculator(testIt, true).calculateScore(bestModel), 1e-5);
    Evaluation eval = bestModel.evaluate(testIt);
    assertTrue(eval.accuracy() >= 0.9, "Iris accuracy of the best early-stopped model: " + eval.accuracy());
  }

  /** Iris as the CSV Deeplearning4j's examples download (4 features, class index), from the jar's copy. */
  private static void writeIrisCsv(File f) throws Exception {
    DataSet iris = new IrisDataSetIterator(150, 150).next();
    INDArray x = iris.getFeatures();
    INDArray cls = iris.getLabels().argMax(1);
    try (PrintWriter w = new PrintWriter(f, "UTF-8")) {
      for (int i = 0; i < 150; i++) {
        w.printf("%s,%s,%s,%s,%d%n", x.getDouble(i, 0), x.getDouble(i, 1), x.getDouble(i, 2), x.getDouble(i, 3),
            cls.getInt(i));
      }
    }
  }
}
