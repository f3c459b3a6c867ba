package org.ndrt.spark;

import java.io.Serializable;
import org.ndrt.nn.ComputationGraph;
import org.ndrt.nn.Model;
import org.ndrt.nn.MultiLayerNetwork;
import org.ndrt.nn.conf.ComputationGraphConfiguration;
import org.ndrt.nn.conf.MultiLayerConfiguration;

/**
 * A network as a Spark task rebuilds it on an executor: its kind and configuration (JSON), plus a key
 * naming the training it belongs to, under which the executor keeps the replicas it built ({@link
 * Replicas}). Parameters travel separately ({@link ModelState}).
 */
final class ModelSpec implements Serializable {
  private static final long serialVersionUID = 1L;
  final boolean graph;
  final String json;
  final String key;

  private ModelSpec(boolean graph, String json, String key) {
    this.graph = graph;
    this.json = json;
    this.key = key;
  }

  private static final java.util.Map<Model, String> KEYS = new java.util.WeakHashMap<>();

  /** The spec of {@code m}, keyed by the network object (the same key for every job on it). */
  static ModelSpec of(Model m) {
    String key;
    synchronized (KEYS) {
      key = KEYS.computeIfAbsent(m, x -> java.util.UUID.randomUUID().toString());
    }
    return of(m, key);
  }

  private static ModelSpec of(Model m, String key) {
    if (!(m instanceof MultiLayerNetwork) && !(m instanceof ComputationGraph)) {
      throw new IllegalArgumentException("Spark training: need a MultiLayerNetwork or a ComputationGraph, got "
          + m.getClass().getName());
    }
    return new ModelSpec(m instanceof ComputationGraph, m.configurationJson(), key);
  }

  /** A new initialised network of this configuration (its parameters are overwritten before use). */
  Model build() {
    Model m = graph ? new ComputationGraph(ComputationGraphConfiguration.fromJson(json))
        : new MultiLayerNetwork(MultiLayerConfiguration.fromJson(json));
    m.init();
    return m;
  }
}
