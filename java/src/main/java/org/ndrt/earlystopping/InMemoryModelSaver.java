package org.ndrt.earlystopping;

import org.ndrt.nn.MultiLayerNetwork;

/**
 * Keeps the best and latest models as in-memory copies ({@code MultiLayerNetwork.clone()}); the
 * default saver. Saving a new copy closes the one it replaces.
 *
 * <p>{@link #getBestModel()} and {@link #getLatestModel()} return the kept copies themselves (no new
 * copy per call). Close them when training is over and you are done with them; during training a
 * copy you hold is closed when the next one replaces it.
 */
public final class InMemoryModelSaver implements EarlyStoppingModelSaver {
  private MultiLayerNetwork best;
  private MultiLayerNetwork latest;

  /** A saver holding nothing yet. */
  public InMemoryModelSaver() {}

  @Override
  public void saveBestModel(MultiLayerNetwork net, double score) {
    MultiLayerNetwork copy = net.clone(); // copy first: if it fails, the old best stays
    MultiLayerNetwork old = best;
    best = copy;
    if (old != null) {
      old.close();
    }
  }

  @Override
  public void saveLatestModel(MultiLayerNetwork net, double score) {
    MultiLayerNetwork copy = net.clone();
    MultiLayerNetwork old = latest;
    latest = copy;
    if (old != null) {
      old.close();
    }
  }

  @Override
  public MultiLayerNetwork getBestModel() {
    return best;
  }

  @Override
  public MultiLayerNetwork getLatestModel() {
    return latest;
  }

  @Override
  public String toString() {
    return "InMemoryModelSaver";
  }
}
