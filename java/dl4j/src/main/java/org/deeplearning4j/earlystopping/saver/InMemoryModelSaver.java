package org.deeplearning4j.earlystopping.saver;

import org.deeplearning4j.earlystopping.EarlyStoppingModelSaver;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;

/**
 * Deeplearning4j's InMemoryModelSaver: copies of the network, kept by org.ndrt.earlystopping's
 * InMemoryModelSaver (a new copy closes the one it replaces). A get returns an adapter over the kept
 * copy itself, as Deeplearning4j returns its kept object.
 */
public class InMemoryModelSaver<T extends MultiLayerNetwork> implements EarlyStoppingModelSaver<T> {
  private final transient org.ndrt.earlystopping.InMemoryModelSaver ndrt =
      new org.ndrt.earlystopping.InMemoryModelSaver();
  // The configuration of the last network saved: org.ndrt's copies carry org.ndrt.nn's configuration only.
  private transient MultiLayerConfiguration conf;

  public InMemoryModelSaver() {}

  @Override
  public void saveBestModel(T net, double score) {
    conf = net.getLayerWiseConfigurations();
    ndrt.saveBestModel(net.ndrtNetwork(), score);
  }

  @Override
  public void saveLatestModel(T net, double score) {
    conf = net.getLayerWiseConfigurations();
    ndrt.saveLatestModel(net.ndrtNetwork(), score);
  }

  @Override
  @SuppressWarnings("unchecked")
  public T getBestModel() {
    org.ndrt.nn.MultiLayerNetwork m = ndrt.getBestModel();
    return m == null ? null : (T) new MultiLayerNetwork(conf, m);
  }

  @Override
  @SuppressWarnings("unchecked")
  public T getLatestModel() {
    org.ndrt.nn.MultiLayerNetwork m = ndrt.getLatestModel();
    return m == null ? null : (T) new MultiLayerNetwork(conf, m);
  }

  @Override
  public String toString() {
    return "InMemoryModelSaver()";
  }
}
