package org.ndrt.ui;

/**
 * Where a {@link StatsListener} sends its records: a storage ({@link InMemoryStatsStorage}, {@link
 * FileStatsStorage}) or another process's dashboard ({@link RemoteStatsRouter}).
 */
public interface StatsRouter {
  /** Takes one record; called on the training thread, so it must not block for long. */
  void put(StatsRecord record);
}
