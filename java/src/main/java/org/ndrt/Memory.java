package org.ndrt;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import org.ndrt.capi.Callbacks;
import org.ndrt.capi.MemoryStatsC;
import org.ndrt.capi.NdrtC;

/**
 * The runtime's memory pools: statistics, trimming, and the memory-pressure hook that keeps a
 * garbage-collected program bounded.
 *
 * <p>Tensors nobody closes hold native memory the Java heap does not see, so the collector may not
 * run soon enough on its own. When native memory in use passes the pressure threshold, the runtime
 * calls back into Java, which runs {@link System#gc()} and gives the {@link java.lang.ref.Cleaner}
 * a moment to release what became unreachable. The default threshold is 512 MiB of host memory; set
 * it with the system property {@code ndrt.memory.pressure.threshold} (bytes, 0 to turn it off) or
 * {@link #setPressureThreshold(long)}.
 */
public final class Memory {
  private Memory() {}

  /** Default threshold for the GC hook, bytes. */
  public static final long DEFAULT_PRESSURE_THRESHOLD = 512L << 20;

  private static final AtomicLong GC_REQUESTS = new AtomicLong();
  private static volatile long pressureThreshold;
  private static boolean configured; // guarded by Memory.class: the user chose; no default then
  private static volatile long maxWaitNanos = 50_000_000L;

  /** Snapshot of a device's pool. */
  public static MemoryStats stats(Device device) {
    return statsOf(device.id());
  }

  private static MemoryStats statsOf(int deviceId) {
    MemoryStatsC s = NdrtC.memory_stats_get(deviceId);
    try {
      return new MemoryStats(s.getIn_use(), s.getCached(), s.getPeak(), s.getHits(), s.getMisses(),
          s.getOom_count(), s.getWrapped());
    } finally {
      s.delete();
    }
  }

  /** Statistics of the calling thread's current device. */
  public static MemoryStats stats() {
    return statsOf(NdrtC.NDRT_DEVICE_CURRENT);
  }

  /** Gives cached (unused) memory of the device back to the system. */
  public static void trim(Device device) {
    NdrtC.memory_trim(device.id());
  }

  public static void resetPeak(Device device) {
    NdrtC.memory_reset_peak(device.id());
  }

  /** Live tensor handles in the process (leak checks). */
  public static long liveHandles() {
    return NdrtC.live_handles();
  }

  /**
   * Runs the garbage collector (and lets the Cleaner release unreachable tensors) whenever native
   * host memory in use passes {@code bytes}; 0 turns the hook off.
   */
  public static synchronized void setPressureThreshold(long bytes) {
    if (bytes < 0) {
      throw new InvalidArgumentException(201, "pressure threshold must be >= 0, got " + bytes);
    }
    configured = true;
    pressureThreshold = bytes;
    Callbacks.setPressureListener(bytes, bytes == 0 ? null : Memory::onPressure);
  }

  /** The threshold of the GC hook (0: off). */
  public static long pressureThreshold() {
    return pressureThreshold;
  }

  /**
   * Replaces the GC hook with a listener of your own, called with the bytes in use (null: none).
   * It runs on the allocating thread; it may free tensors.
   */
  public static synchronized void setPressureListener(long thresholdBytes, LongConsumer listener) {
    configured = true;
    pressureThreshold = listener == null ? 0 : thresholdBytes;
    Callbacks.setPressureListener(thresholdBytes, listener);
  }

  /** How many times the GC hook has run {@link System#gc()} in this process. */
  public static long gcRequests() {
    return GC_REQUESTS.get();
  }

  /**
   * The longest the GC hook waits, after {@link System#gc()}, for the Cleaner to bring native memory
   * below the threshold (default 50 ms); it stops earlier once nothing more is being released.
   */
  public static void setPressureMaxWaitMillis(long millis) {
    maxWaitNanos = Math.max(0, millis) * 1_000_000L;
  }

  static void installDefaultPressureHandler() {
    long t = DEFAULT_PRESSURE_THRESHOLD;
    String p = System.getProperty("ndrt.memory.pressure.threshold");
    if (p != null && !p.isBlank()) {
      try {
        t = Long.parseLong(p.trim());
      } catch (NumberFormatException e) {
        throw new InvalidArgumentException(201, "-Dndrt.memory.pressure.threshold=" + p + " is not a number of bytes");
      }
    }
    synchronized (Memory.class) {
      if (!configured && Callbacks.pressureListener() == null) {
        setPressureThreshold(t);
      }
    }
  }

  /**
   * The GC hook: collect, then give the Cleaner thread time to release what the collector found, so
   * that an allocating loop cannot outrun it. It waits while memory in use keeps falling and is still
   * above the threshold; it stops when memory is below the threshold, when nothing has been released
   * for a few milliseconds (the memory is live), or after the maximum wait.
   */
  private static void onPressure(long inUse) {
    GC_REQUESTS.incrementAndGet();
    System.gc();
    long threshold = pressureThreshold;
    long start = System.nanoTime();
    long deadline = start + maxWaitNanos;
    // The collector hands what it found to the Cleaner through the reference handler thread: allow
    // a longer wait for the first release than between two releases.
    long firstGrace = Math.min(maxWaitNanos, 20_000_000L);
    long stallNanos = Math.min(maxWaitNanos, 5_000_000L);
    long last = inUse;
    long lastProgress = start;
    boolean progressed = false;
    while (true) {
      long now = hostInUse();
      if (now < threshold) {
        return;
      }
      long t = System.nanoTime();
      if (now < last) {
        last = now;
        lastProgress = t;
        progressed = true;
      } else if (t - lastProgress > (progressed ? stallNanos : firstGrace) || t > deadline) {
        return;
      }
      Thread.yield();
    }
  }

  private static long hostInUse() {
    MemoryStatsC s = NdrtC.memory_stats_get(0);
    try {
      return s.getIn_use();
    } finally {
      s.delete();
    }
  }
}
