package org.ndrt.nn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.ndrt.DType;
import org.ndrt.data.MnistDataSetIterator;
import org.ndrt.eval.Evaluation;
import org.ndrt.examples.LeNetMnist;

/**
 * The README demo's network on a small real subset: the first 3,000 digits of the official MNIST
 * training set (fetched into the data cache on first use), 3 epochs, evaluated on the first 1,000
 * of the official test set. The bar is 0.90 (the seed is fixed, the margin is for the different
 * summation orders of other thread counts; after 2 epochs it was 0.898, short of it).
 */
class MnistConvergenceTest {
  @Test
  void lenetLearnsRealDigits() throws Exception {
    MnistDataSetIterator.Builder b = MnistDataSetIterator.builder().batchSize(64).seed(123);
    try (MnistDataSetIterator train = b.train(true).numExamples(3000).build();
         MnistDataSetIterator test = b.train(false).numExamples(1000).build();
         MultiLayerNetwork net = new MultiLayerNetwork(LeNetMnist.lenet(123, DType.F32))) {
      net.init();
      Evaluation before = net.evaluate(test);
      net.fit(train, 3);
      Evaluation after = net.evaluate(test);
      assertEquals(1000, after.numExamples());
      assertEquals(3, net.getEpochCount());
      assertTrue(before.accuracy() < 0.3, "untrained: " + before.accuracy());
      assertTrue(after.accuracy() >= 0.90, "accuracy after 3 epochs on 3,000 digits: " + after.accuracy()
          + "\n" + after.stats());
    }
  }
}
