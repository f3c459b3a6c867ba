package org.deeplearning4j.ui.model.stats;

import org.deeplearning4j.core.storage.StatsStorageRouter;

/** Deeplearning4j's Java 7 StatsListener: the same as {@link StatsListener} here (one file format). */
public class J7StatsListener extends StatsListener {
  public J7StatsListener(StatsStorageRouter router) {
    super(router);
  }

  public J7StatsListener(StatsStorageRouter router, int listenerFrequency) {
    super(router, listenerFrequency);
  }
}
