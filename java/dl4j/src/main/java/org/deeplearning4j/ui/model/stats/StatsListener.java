package org.deeplearning4j.ui.model.stats;

import org.deeplearning4j.core.storage.StatsStorageRouter;
import org.deeplearning4j.optimize.api.BaseTrainingListener;
import org.ndrt.dl4j.NdrtBacked;

/**
 * Deeplearning4j's StatsListener: the drop-in networks run org.ndrt.ui.StatsListener in its place
 * ({@link NdrtBacked}), so the records are ndrt's (score, learning rate, per-layer summaries, timing,
 * native memory; see that class). The Deeplearning4j callbacks here are BaseTrainingListener's empty ones:
 * a caller driving them by hand records nothing.
 */
public class StatsListener extends BaseTrainingListener
    implements NdrtBacked<org.ndrt.nn.listeners.TrainingListener> {
  private final org.ndrt.ui.StatsListener listener;

  public StatsListener(StatsStorageRouter router) {
    this(router, 1);
  }

  /** Records every {@code listenerFrequency} iterations. */
  public StatsListener(StatsStorageRouter router, int listenerFrequency) {
    this(router, listenerFrequency, null);
  }

  /** Records every {@code listenerFrequency} iterations under {@code sessionId} (null: a random one). */
  public StatsListener(StatsStorageRouter router, int listenerFrequency, String sessionId) {
    listener = org.ndrt.ui.StatsListener.builder(router).frequency(listenerFrequency).sessionId(sessionId).build();
  }

  /** ndrt: over an org.ndrt.ui.StatsListener built with its own options (summaryEvery, profileEvery). */
  public StatsListener(org.ndrt.ui.StatsListener listener) {
    if (listener == null) {
      throw new IllegalArgumentException("StatsListener: the listener must not be null");
    }
    this.listener = listener;
  }

  public String getSessionID() {
    return listener.getSessionId();
  }

  @Override
  public org.ndrt.nn.listeners.TrainingListener ndrt() {
    return listener;
  }
}
