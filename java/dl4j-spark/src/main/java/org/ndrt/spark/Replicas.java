package org.ndrt.spark;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The networks an executor JVM keeps between the tasks of one training: a task borrows a replica of its
 * training's network (building one the first time, or when all are in use by concurrent tasks) and
 * gives it back when it is done, so the rounds of a fit rebuild nothing. Replicas of the last few
 * trainings stay; older ones are closed when a newer training gives a replica back. A task that fails
 * closes its replica instead of giving it back (its state is unknown).
 */
final class Replicas {
  private static final int TRAININGS_KEPT = 4;
  private static final Map<String, ArrayDeque<org.ndrt.nn.Model>> IDLE = new LinkedHashMap<>();

  private Replicas() {}

  static org.ndrt.nn.Model borrow(ModelSpec spec) {
    synchronized (IDLE) {
      ArrayDeque<org.ndrt.nn.Model> q = IDLE.get(spec.key);
      if (q != null && !q.isEmpty()) {
        return q.pop();
      }
    }
    return spec.build();  // outside the lock: building allocates and initialises
  }

  static void giveBack(ModelSpec spec, org.ndrt.nn.Model m) {
    synchronized (IDLE) {
      ArrayDeque<org.ndrt.nn.Model> q = IDLE.remove(spec.key);  // re-inserted: the map's order is recency
      IDLE.put(spec.key, q == null ? new ArrayDeque<>() : q);
      IDLE.get(spec.key).push(m);
      Iterator<Map.Entry<String, ArrayDeque<org.ndrt.nn.Model>>> it = IDLE.entrySet().iterator();
      while (IDLE.size() > TRAININGS_KEPT && it.hasNext()) {
        for (org.ndrt.nn.Model old : it.next().getValue()) {
          old.close();
        }
        it.remove();
      }
    }
  }
}
