package org.ndrt.nn;

import java.util.List;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.data.DataSetIterator;
import org.ndrt.nn.conf.MultiLayerConfiguration;
import org.ndrt.nn.conf.layers.EmbeddingSequenceLayer;
import org.ndrt.nn.layers.LayerImpl;
import org.ndrt.nn.layers.ParamSpec;
import org.ndrt.nn.layers.VaeImpl;
import org.ndrt.nn.listeners.TrainingListener;
import org.ndrt.nn.updater.Adam;
import org.ndrt.nn.updater.Updater;

/**
 * Layer-wise unsupervised training, as Deeplearning4j's pretrainLayer: the features go through the
 * layers before the pretrained one in inference mode (those stay as they are), the layer takes one
 * step per minibatch on its own objective (a VariationalAutoencoder: the negative ELBO), and the
 * network's updater moves that layer's parameters only (with l2 / weight decay on its weights, as
 * fit does), at the layer's own pretraining step count (Adam's bias correction starts afresh for
 * each layer, as Deeplearning4j's per-layer pretraining updater does). Listeners get iterationDone
 * with that count and the layer's score; fit's iteration and epoch counts do not move.
 *
 * <p>{@code Pretraining.pretrain(net, iterator, epochs)} is Deeplearning4j's {@code net.pretrain(iterator,
 * epochs)} (static here: MultiLayerNetwork.java stays under 1,000 lines).
 */
public final class Pretraining {
  private Pretraining() {}

  /** Each layer that pretrains, first to last, {@code epochs} epochs of the iterator each; other layers are skipped. */
  public static void pretrain(MultiLayerNetwork net, DataSetIterator it, int epochs) {
    for (int i = 0; i < net.layers().length; ++i) {
      pretrainLayer(net, i, it, epochs);
    }
  }

  /** Layer {@code i}'s variational autoencoder (encoding, generation, reconstruction probabilities), or null. */
  public static VaeImpl variationalAutoencoder(MultiLayerNetwork net, int i) {
    LayerImpl[] ls = net.layers();
    if (i < 0 || i >= ls.length) {
      throw new IllegalArgumentException("layer " + i + " does not exist (the network has " + ls.length
          + " layers)");
    }
    return ls[i] instanceof VaeImpl ? (VaeImpl) ls[i] : null;
  }

  /** Layer {@code i} alone for {@code epochs} epochs (nothing for a layer that does not pretrain). */
  public static void pretrainLayer(MultiLayerNetwork net, int i, DataSetIterator it, int epochs) {
    if (epochs < 0) {
      throw new IllegalArgumentException("pretrainLayer: epochs must be >= 0, got " + epochs);
    }
    if (variationalAutoencoder(net, i) == null) {
      return;
    }
    for (int e = 0; e < epochs; ++e) {
      if (e > 0 || !it.hasNext()) {
        it.reset();
      }
      while (it.hasNext()) {
        try (DataSet ds = it.next()) {
          pretrainStep(net, i, ds.features());
        }
      }
    }
  }

  /** One step of layer i on one minibatch of features; its score (NaN for a layer that does not pretrain). */
  public static double pretrainStep(MultiLayerNetwork net, int i, Tensor features) {
    VaeImpl v = variationalAutoencoder(net, i);
    if (v == null) {
      return Double.NaN;
    }
    MultiLayerConfiguration conf = net.getConfiguration();
    LayerImpl[] ls = net.layers();
    double score;
    try (InputStage in = new InputStage(conf.inputType(), conf.dataType(),
        conf.layers().get(0) instanceof EmbeddingSequenceLayer)) {
      Tensor a = in.forward(features, false);
      for (int j = 0; j < i; ++j) {
        a = ls[j].forward(a, false);
      }
      score = v.pretrainStep(a);
    }
    long step = v.nextPretrainStep();
    update(net, i, v.params(), step);
    for (TrainingListener l : net.getListeners()) {
      l.iterationDone(net, step, net.getEpochCount(), score, (int) features.shape()[0]);
    }
    return score;
  }

  /** The network's update (MultiLayerNetwork.update) on layer i's parameter ranges only. */
  private static void update(MultiLayerNetwork net, int i, List<ParamSpec> specs, long step) {
    MultiLayerConfiguration conf = net.getConfiguration();
    Updater u = conf.updater();
    double wd = conf.weightDecay();
    long[] ranges = net.gradientRanges()[i];
    Tensor params = net.params();
    Tensor grads = net.gradients();
    Tensor state = net.updaterState();
    long t = grads.numel();
    for (int j = 0; j < specs.size(); ++j) {
      long off = ranges[2 * j];
      long end = off + ranges[2 * j + 1];
      boolean weight = specs.get(j).kind == ParamSpec.Kind.WEIGHT;
      Tensor[] st = new Tensor[u.stateSlots()];
      try (Tensor p = params.slice(0, off, end); Tensor g = grads.slice(0, off, end)) {
        for (int k = 0; k < st.length; ++k) {
          st[k] = state.slice(0, k * t + off, k * t + end);
        }
        if (weight && wd > 0 && u instanceof Adam) {
          ((Adam) u).applyDecoupled(p, g, st, wd, step);
        } else {
          if (weight && wd > 0) {
            try (Tensor d = Tensor.scalar(1 - u.learningRate() * wd, p.dtype())) {
              Ops.mul(p, d, p);  // decoupled decay: w -= lr * wd * w
            }
          }
          u.apply(p, g, st, weight ? conf.l2() : 0, step);
        }
      } finally {
        for (Tensor s : st) {
          if (s != null) {
            s.close();
          }
        }
      }
    }
  }
}
