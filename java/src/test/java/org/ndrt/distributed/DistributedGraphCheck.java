package org.ndrt.distributed;

import static org.ndrt.distributed.DistributedCheck.averageOverRanks;
import static org.ndrt.distributed.DistributedCheck.check;
import static org.ndrt.distributed.DistributedCheck.closeToGlobalBatch;
import static org.ndrt.distributed.DistributedCheck.digits;
import static org.ndrt.distributed.DistributedCheck.info;
import static org.ndrt.distributed.DistributedCheck.relDiff;
import static org.ndrt.distributed.DistributedCheck.sameOnAllRanks;
import static org.ndrt.distributed.DistributedCheck.shard;

import java.util.Arrays;
import org.ndrt.data.DataSet;
import org.ndrt.data.ExampleSource;
import org.ndrt.data.ShardedDataSetIterator;
import org.ndrt.eval.Evaluation;
import org.ndrt.nn.ComputationGraph;
import org.ndrt.nn.Model;
import org.ndrt.nn.MultiLayerNetwork;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.ComputationGraphConfiguration;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.WeightInit;
import org.ndrt.nn.conf.graph.MergeVertex;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.DropoutLayer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.updater.Nesterovs;

/**
 * DistributedCheck's {@code graph} check: the distributed trainer on a ComputationGraph (one input,
 * one output). A chain graph trains as the same MultiLayerNetwork under gradient sharing, bit for
 * bit (so the graph's backward hands the layers' gradients to the buckets as the stack's does); a
 * branching graph with gradient sharing is close to one process on the global batch, the same for
 * every bucket size; parameter averaging equals replicas averaged by hand; evaluation sums over
 * the ranks.
 */
final class DistributedGraphCheck {
  private DistributedGraphCheck() {}

  static NeuralNetConfiguration.Builder base(long seed) {
    return new NeuralNetConfiguration.Builder().seed(seed).l2(1e-4).weightInit(WeightInit.XAVIER)
        .updater(new Nesterovs(0.05, 0.9));
  }

  /** DistributedCheck.mlp (784 -> dense 64 relu -> dropout 0.3 -> softmax 10) as a chain graph. */
  static ComputationGraph mlpGraph(long seed) {
    ComputationGraph g = new ComputationGraph(base(seed).graphBuilder()
        .addInputs("in")
        .setInputTypes(InputType.feedForward(784))
        .addLayer("d", new DenseLayer.Builder().activation(Activation.RELU).nOut(64).build(), "in")
        .addLayer("drop", new DropoutLayer.Builder(0.3).build(), "d")
        .addLayer("out", new OutputLayer.Builder(LossFunction.NEGATIVELOGLIKELIHOOD).nOut(10).activation(Activation.SOFTMAX)
            .build(), "drop")
        .setOutputs("out")
        .build());
    g.init();
    return g;
  }

  /** 784 -> dense 32 relu and dense 16 tanh -> merged -> softmax 10: not a chain, no random draws. */
  static ComputationGraphConfiguration branching(long seed) {
    return base(seed).graphBuilder()
        .addInputs("in")
        .setInputTypes(InputType.feedForward(784))
        .addLayer("a", new DenseLayer.Builder().activation(Activation.RELU).nOut(32).build(), "in")
        .addLayer("b", new DenseLayer.Builder().activation(Activation.TANH).nOut(16).build(), "in")
        .addVertex("m", new MergeVertex(), "a", "b")
        .addLayer("out", new OutputLayer.Builder(LossFunction.NEGATIVELOGLIKELIHOOD).nOut(10).activation(Activation.SOFTMAX)
            .build(), "m")
        .setOutputs("out")
        .build();
  }

  static ComputationGraph graph(ComputationGraphConfiguration conf) {
    ComputationGraph g = new ComputationGraph(conf);
    g.init();
    return g;
  }

  static void graph(Communicator world) {
    ExampleSource train = digits(700, 1); // 10 global batches of 64 per epoch
    int epochs = 2;

    // A chain graph and its MultiLayerNetwork, gradient sharing with a bucket per layer.
    try (MultiLayerNetwork net = DistributedCheck.network(DistributedCheck.mlp(7)); ComputationGraph g = mlpGraph(7)) {
      check("graph: the chain graph starts as the MultiLayerNetwork", Arrays.equals(net.params().toFloatArray(),
          g.params().toFloatArray()));
      DistributedTrainer tg = null;
      for (Model m : new Model[] {net, g}) {
        DistributedTrainer t = new DistributedTrainer.Builder(m, world).gradientSharing().bucketBytes(1).build();
        try (ShardedDataSetIterator it = shard(train, 32, 99)) {
          t.fit(it, epochs);
        }
        tg = t;
      }
      ComputationGraph back = tg.getNetwork();
      check("graph: getNetwork() gives the graph back as a graph", back == g);
      float[] p = net.params().toFloatArray();
      float[] q = g.params().toFloatArray();
      check("graph: gradient sharing trains a chain graph (dropout) as the same MultiLayerNetwork, bit for bit",
          Arrays.equals(p, q) && Arrays.equals(net.updaterState().toFloatArray(), g.updaterState().toFloatArray()),
          "rel diff " + relDiff(q, p));
      check("graph: 20 steps", g.getIterationCount() == 20, "iterations " + g.getIterationCount());
      check("graph: replicas bit-identical across ranks", sameOnAllRanks(q));
    }

    // A branching graph: the global batch, and every bucket size alike.
    ComputationGraphConfiguration conf = branching(11);
    float[][] byBucket = new float[3][];
    long[] buckets = {1, DistributedTrainer.DEFAULT_BUCKET_BYTES, Long.MAX_VALUE};
    for (int i = 0; i < buckets.length; ++i) {
      try (ComputationGraph g = graph(conf); ShardedDataSetIterator it = shard(train, 32, 99)) {
        new DistributedTrainer.Builder(g, world).gradientSharing().bucketBytes(buckets[i]).build().fit(it, epochs);
        byBucket[i] = g.params().toFloatArray();
      }
    }
    check("graph: bucket sizes (1 B, 1 MiB, unbounded) give the same parameters bit for bit",
        Arrays.equals(byBucket[0], byBucket[1]) && Arrays.equals(byBucket[1], byBucket[2]));
    check("graph: branching replicas bit-identical across ranks", sameOnAllRanks(byBucket[1]));
    float[] ref;
    try (ComputationGraph g = graph(conf);
         ShardedDataSetIterator it = new ShardedDataSetIterator(train, 32 * world.size(), 0, 1, 99)) {
      g.fit(it, epochs);
      ref = g.params().toFloatArray();
    }
    closeToGlobalBatch("graph: 2 x 32 with gradient sharing = 1 x 64 (branching graph)", byBucket[1], ref);

    averaging(world, conf, train, epochs);

    // Evaluation: the ranks' parts of a test set summed = the whole set.
    ExampleSource test = digits(301, 2);
    try (ComputationGraph g = graph(conf);
         ShardedDataSetIterator part = ShardedDataSetIterator.builder(test).batchSize(16).rank(world.rank(), world.size())
             .shuffle(false).dropLast(false).build();
         ShardedDataSetIterator whole = ShardedDataSetIterator.builder(test).batchSize(64).shuffle(false).dropLast(false).build()) {
      g.params().copyFrom(byBucket[1]);
      Evaluation summed = new DistributedTrainer.Builder(g, world).build().evaluate(part);
      Evaluation local = g.evaluate(whole);
      check("graph: evaluate sums the ranks' confusion matrices",
          summed.numExamples() == 301 && Arrays.deepEquals(summed.getConfusionMatrix(), local.getConfusionMatrix()),
          summed.numExamples() + " examples, accuracy " + summed.accuracy() + " vs " + local.accuracy());
    }
  }

  /**
   * Parameter averaging every 3 steps with the updater state averaged, against plain graph replicas
   * averaged by hand (DistributedCheck.averagingNesterovs's reference, on a graph), in the same
   * process: bit for bit, or within 1e-5 as there.
   */
  static void averaging(Communicator world, ComputationGraphConfiguration conf, ExampleSource train, int epochs) {
    int k = 3;
    float[] p;
    float[] u;
    try (ComputationGraph g = graph(conf); ShardedDataSetIterator it = shard(train, 32, 99)) {
      new DistributedTrainer.Builder(g, world).parameterAveraging(k).saveUpdater(true).build().fit(it, epochs);
      p = g.params().toFloatArray();
      u = g.updaterState().toFloatArray();
    }
    try (ComputationGraph rep = graph(conf); ShardedDataSetIterator it = shard(train, 32, 99)) {
      for (int e = 0; e < epochs; ++e) {
        it.seek(e, 0);
        int inRound = 0;
        while (it.hasNext()) {
          try (DataSet ds = it.next()) {
            rep.fit(ds);
          }
          if (++inRound == k || !it.hasNext()) {
            averageOverRanks(rep.params());
            averageOverRanks(rep.updaterState());
            inRound = 0;
          }
        }
      }
      float[] rp = rep.params().toFloatArray();
      float[] ru = rep.updaterState().toFloatArray();
      info("graph: averaging every %d steps vs replicas averaged by hand: max rel diff %.3g, momentum %.3g", k,
          relDiff(p, rp), relDiff(u, ru));
      check("graph: parameter averaging every 3 steps = graph replicas averaged by hand",
          (Arrays.equals(p, rp) || relDiff(p, rp) <= 1e-5) && (Arrays.equals(u, ru) || relDiff(u, ru) <= 1e-5),
          "rel diff " + relDiff(p, rp) + ", momentum " + relDiff(u, ru));
    }
  }
}
