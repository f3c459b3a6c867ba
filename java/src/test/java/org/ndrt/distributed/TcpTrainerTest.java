package org.ndrt.distributed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.ndrt.distributed.DistributedCheck.GLOBAL_BATCH_L2_TOLERANCE;
import static org.ndrt.distributed.DistributedCheck.GLOBAL_BATCH_MAX_TOLERANCE;
import static org.ndrt.distributed.DistributedCheck.relDiff;
import static org.ndrt.distributed.DistributedCheck.relL2;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.ndrt.Ndrt;
import org.ndrt.data.ExampleSource;
import org.ndrt.data.ShardedDataSetIterator;
import org.ndrt.eval.Evaluation;
import org.ndrt.nn.MultiLayerNetwork;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.MultiLayerConfiguration;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.WeightInit;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.updater.Nesterovs;
import org.ndrt.nn.updater.Sgd;
import org.ndrt.nn.updater.Updater;

/**
 * DistributedTrainer over TcpCommunicator, 2 ranks as threads, against one process on the global
 * batch (the tolerances of the MPI checks, DistributedCheck). The network is an MLP without
 * dropout: ranks draw other masks than one process would.
 */
class TcpTrainerTest {
  static final ExampleSource TRAIN = DistributedCheck.digits(700, 1); // 10 global batches of 64 per epoch

  @BeforeAll
  static void oneThread() {
    Ndrt.setConfig("cpu.threads", "1");
  }

  static MultiLayerConfiguration mlp(Updater u) {
    return new NeuralNetConfiguration.Builder()
        .seed(5).l2(1e-4).weightInit(WeightInit.XAVIER).updater(u)
        .list()
        .layer(new DenseLayer.Builder().activation(Activation.RELU).nOut(48).build())
        .layer(new DenseLayer.Builder().activation(Activation.TANH).nOut(32).build())
        .layer(new OutputLayer.Builder(LossFunction.NEGATIVELOGLIKELIHOOD).nOut(10).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.feedForward(784))
        .build();
  }

  /** Each rank's parameters after {@code epochs} of 2 x 32 over TCP; {@code averaging} 0: gradient sharing. */
  static List<float[]> overTcp(MultiLayerConfiguration conf, int epochs, int averaging, long bucketBytes) throws Exception {
    return TcpRanks.run(2, TcpRanks.PATIENT, (r, c) -> {
      try (MultiLayerNetwork net = DistributedCheck.network(conf);
           ShardedDataSetIterator shard = new ShardedDataSetIterator(TRAIN, 32, r, 2, 99)) {
        DistributedTrainer.Builder b = new DistributedTrainer.Builder(net, c).bucketBytes(bucketBytes);
        DistributedTrainer t = (averaging == 0 ? b.gradientSharing() : b.parameterAveraging(averaging)).build();
        t.fit(shard, epochs);
        assertEquals(10L * epochs, net.getIterationCount());
        assertTrue(t.score() > 0 && t.score() < 5, "score " + t.score());
        return net.params().toFloatArray();
      }
    });
  }

  static void closeToGlobalBatch(String what, float[] p, float[] ref) {
    double l2 = relL2(p, ref);
    double max = relDiff(p, ref);
    System.out.printf("%s: |a - b| / |b| = %.3g, max |a - b| / max |b| = %.3g%n", what, l2, max);
    assertTrue(l2 <= GLOBAL_BATCH_L2_TOLERANCE && max <= GLOBAL_BATCH_MAX_TOLERANCE, what + ": |a - b| / |b| = " + l2
        + " (tolerance " + GLOBAL_BATCH_L2_TOLERANCE + "), max |a - b| / max |b| = " + max);
  }

  @Test
  void gradientSharingEqualsOneProcessOnTheGlobalBatch() throws Exception {
    MultiLayerConfiguration conf = mlp(new Nesterovs(0.02, 0.9));
    List<float[]> perLayer = overTcp(conf, 3, 0, 1); // a bucket per layer: several allreduceAsync in flight
    List<float[]> oneBucket = overTcp(conf, 3, 0, Long.MAX_VALUE);
    assertArrayEquals(perLayer.get(0), perLayer.get(1), "replicas bit-identical across ranks");
    assertArrayEquals(perLayer.get(0), oneBucket.get(0), "the bucket size does not change the result (2 ranks)");
    float[] ref = DistributedCheck.single(conf, TRAIN, 64, 3).params();
    float[] start;
    try (MultiLayerNetwork net = DistributedCheck.network(conf)) {
      start = net.params().toFloatArray();
    }
    assertTrue(relL2(ref, start) > 100 * GLOBAL_BATCH_L2_TOLERANCE, "training moved the parameters: " + relL2(ref, start));
    closeToGlobalBatch("2 x 32 with gradient sharing over TCP = 1 x 64", perLayer.get(0), ref);
  }

  @Test
  void parameterAveragingEveryStepWithSgdEqualsTheGlobalBatch() throws Exception {
    MultiLayerConfiguration conf = mlp(new Sgd(0.05));
    List<float[]> p = overTcp(conf, 3, 1, DistributedTrainer.DEFAULT_BUCKET_BYTES);
    assertArrayEquals(p.get(0), p.get(1), "replicas bit-identical across ranks");
    closeToGlobalBatch("averaging every step with SGD over TCP = 1 x 64", p.get(0), DistributedCheck.single(conf, TRAIN, 64, 3)
        .params());
  }

  @Test
  void parameterAveragingWithMomentumKeepsTheReplicasEqual() throws Exception {
    List<float[]> p = overTcp(mlp(new Nesterovs(0.02, 0.9)), 2, 3, DistributedTrainer.DEFAULT_BUCKET_BYTES);
    assertArrayEquals(p.get(0), p.get(1), "replicas bit-identical across ranks after the epoch's last averaging");
  }

  @Test
  void evaluationSumsTheRanksConfusionMatrices() throws Exception {
    ExampleSource test = DistributedCheck.digits(301, 2);
    MultiLayerConfiguration conf = mlp(new Sgd(0.05));
    List<long[][]> got = TcpRanks.run(2, TcpRanks.PATIENT, (r, c) -> {
      try (MultiLayerNetwork net = DistributedCheck.network(conf);
           ShardedDataSetIterator part = ShardedDataSetIterator.builder(test).batchSize(16).rank(r, 2).shuffle(false)
               .dropLast(false).build()) {
        Evaluation e = new DistributedTrainer.Builder(net, c).build().evaluate(part);
        assertEquals(301, e.numExamples());
        return e.getConfusionMatrix();
      }
    });
    try (MultiLayerNetwork net = DistributedCheck.network(conf);
         ShardedDataSetIterator whole = ShardedDataSetIterator.builder(test).batchSize(64).shuffle(false).dropLast(false)
             .build()) {
      long[][] ref = net.evaluate(whole).getConfusionMatrix();
      assertTrue(Arrays.deepEquals(ref, got.get(0)) && Arrays.deepEquals(ref, got.get(1)));
    }
  }
}
