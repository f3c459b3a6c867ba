package org.ndrt.ui;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A {@link StatsStorage} in memory: the records of the sessions, kept as their JSON text. */
public class InMemoryStatsStorage implements StatsStorage {
  private static final class Session {
    final List<String> statics = new ArrayList<>();
    final List<String> updates = new ArrayList<>();
  }

  private final Map<String, Session> sessions = new LinkedHashMap<>();

  @Override
  public void put(StatsRecord r) {
    if (r == null) {
      throw new IllegalArgumentException("put: the record must not be null");
    }
    synchronized (this) {
      Session s = sessions.computeIfAbsent(r.session(), k -> new Session());
      (StatsRecord.STATIC.equals(r.type()) ? s.statics : s.updates).add(r.json());
    }
  }

  @Override
  public synchronized List<String> sessions() {
    return List.copyOf(sessions.keySet());
  }

  @Override
  public synchronized List<String> staticInfo(String session) {
    Session s = sessions.get(session);
    return s == null ? List.of() : List.copyOf(s.statics);
  }

  @Override
  public synchronized int updateCount(String session) {
    Session s = sessions.get(session);
    return s == null ? 0 : s.updates.size();
  }

  @Override
  public synchronized List<String> updates(String session, int from, int max) {
    if (from < 0 || max < 0) {
      throw new IllegalArgumentException("updates: from and max must be >= 0, got " + from + ", " + max);
    }
    Session s = sessions.get(session);
    if (s == null || from >= s.updates.size()) {
      return List.of();
    }
    return List.copyOf(s.updates.subList(from, (int) Math.min(s.updates.size(), (long) from + max)));
  }

  @Override
  public void close() {}
}
