package org.deeplearning4j.ui.model.storage;

import org.deeplearning4j.core.storage.StatsStorage;

/** Deeplearning4j's InMemoryStatsStorage: org.ndrt.ui.InMemoryStatsStorage under Deeplearning4j's name. */
public class InMemoryStatsStorage extends org.ndrt.ui.InMemoryStatsStorage implements StatsStorage {
  public InMemoryStatsStorage() {}
}
