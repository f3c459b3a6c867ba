package org.ndrt.earlystopping;

import org.ndrt.nn.Model;

/**
 * Keeps the best and latest models as in-memory copies ({@code Model.clone()}: a
 * MultiLayerNetwork's or a ComputationGraph's); the
 * default saver. Saving a new copy closes the one it replaces.
 *
 * <p>{@link #getBestModel()} and {@link #getLatestModel()} return the kept copies themselves (no new
 * copy per call). Close them when training is over and you are done with them; during training a
 * copy you hold is closed when the next one replaces it.
 */
public final class InMemoryModelSaver implements EarlyStoppingModelSaver {
  private Model best;
  private Model latest;

  /** A saver holding nothing yet. */
  public InMemoryModelSaver() {}

  @Override
  public void saveBestModel(Model net, double score) {
    Model copy = net.clone(); // copy first: if it fails, the old best stays
    Model old = best;
    best = copy;
    if (old != null) {
      old.close();
    }
  }

  @Override
  public void saveLatestModel(Model net, double score) {
    Model copy = net.clone();
    Model old = latest;
    latest = copy;
    if (old != null) {
      old.close();
    }
  }

  /** The kept copy of the best model; the cast to the caller's type is unchecked (see {@link EarlyStoppingModelSaver}). */
  @Override
  @SuppressWarnings("unchecked")
  public <T extends Model> T getBestModel() {
    return (T) best;
  }

  /** The kept copy of the latest model; the cast to the caller's type is unchecked. */
  @Override
  @SuppressWarnings("unchecked")
  public <T extends Model> T getLatestModel() {
    return (T) latest;
  }

  @Override
  public String toString() {
    return "InMemoryModelSaver";
  }
}
