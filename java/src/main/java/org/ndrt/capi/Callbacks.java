package org.ndrt.capi;

import java.util.function.LongConsumer;

/**
 * Java ends of the runtime's callbacks. The native trampolines (java/native/ndrt_jni.c) call the
 * private static methods below; listeners are swapped here, in Java, so that replacing one never
 * races with a callback already in flight on another thread.
 *
 * <p>Callbacks may arrive on any thread, including native threads of the runtime, which the JNI layer
 * attaches to the JVM as daemon threads. An exception thrown by a listener is printed and dropped.
 */
public final class Callbacks {
  private Callbacks() {}

  /** Receives the runtime's log lines (levels as {@code NDRT_LOG_*}: 0 error .. 3 debug). */
  @FunctionalInterface
  public interface LogListener {
    void log(int level, String message);
  }

  private static volatile LongConsumer pressureListener;
  private static volatile LogListener logListener;

  /**
   * Calls {@code listener} with the bytes in use (all host pools) when an allocation takes them to
   * or past {@code thresholdBytes}; while in use stays there, again each time it has grown by an
   * eighth of the threshold since the previous call returned, and after falling below, on crossing
   * again. It runs on the allocating thread. A null listener removes it.
   */
  public static synchronized void setPressureListener(long thresholdBytes, LongConsumer listener) {
    if (listener == null) {
      NdrtC.memory_set_pressure_callback(0, 0);
      pressureListener = null;
      return;
    }
    pressureListener = listener;
    NdrtC.memory_set_pressure_callback(thresholdBytes, 1);
  }

  public static LongConsumer pressureListener() {
    return pressureListener;
  }

  /**
   * Routes the runtime's log lines (at or above {@code log.level}) to {@code listener}; null: stderr.
   * The listener may run on any thread, possibly while the runtime holds internal locks: it should
   * record or print the line and return, not call back into ndrt.
   */
  public static synchronized void setLogListener(LogListener listener) {
    logListener = listener;
    NdrtC.set_log_callback(listener == null ? 0 : 1);
  }

  @SuppressWarnings("unused") // called from JNI
  private static void pressure(long inUseBytes) {
    LongConsumer l = pressureListener;
    if (l != null) {
      l.accept(inUseBytes);
    }
  }

  @SuppressWarnings("unused") // called from JNI
  private static void log(int level, String message) {
    LogListener l = logListener;
    if (l != null) {
      l.log(level, message);
    } else {
      System.err.println("ndrt: " + message);
    }
  }
}
