package org.ndrt.ui;

import java.util.List;

/** Records kept by session, for the dashboard ({@link UIServer#attach}); safe to use from several threads. */
public interface StatsStorage extends StatsRouter, AutoCloseable {
  /** The session ids, in the order their first record came. */
  List<String> sessions();

  /** The session's static records (one per worker; the model's description), oldest first; empty if none. */
  List<String> staticInfo(String session);

  /** How many update records the session has (0 for an unknown session). */
  int updateCount(String session);

  /** The session's update records from index {@code from} (0-based) on, at most {@code max}, oldest first. */
  List<String> updates(String session, int from, int max);

  /** Releases what the storage holds open (a file); the records read stay readable. */
  @Override
  void close();
}
