package org.ndrt;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongConsumer;
import org.ndrt.capi.Callbacks;
import org.ndrt.capi.MemoryStatsC;
import org.ndrt.capi.NdrtC;

/**
 * The runtime's memory pools: statistics, trimming, and the memory-pressure hook that keeps a
 * garbage-collected program bounded.
 *
 * <p>Tensors nobody closes hold native memory the Java heap does not see, so the collector may not
 * run soon enough on its own, and one cleaner thread may release more slowly than a loop allocates.
 * When host memory in use passes the pressure threshold, the runtime calls this hook on the
 * allocating thread (again after every further eighth of the threshold while in use stays above
 * it). The hook puts the allocating thread to work: it first releases, itself, every tensor the
 * collector has already found unreachable; if in use is still over the threshold, it runs {@link
 * System#gc()} and then releases everything that collection found (the registered tensors whose
 * phantom references it cleared), without waiting for the reference handler thread to queue them.
 * One thread collects at a time; other threads wait for it in the hook or at their next new tensor.
 * So an allocating loop cannot outrun the release of what it drops, whatever the heap size: native
 * memory stays within the threshold plus an eighth of it, give or take one op's outputs per thread.
 * Where a collection frees less than half a threshold (the memory is live), the next waits until in
 * use has grown by another threshold: the bound is then what is live plus the threshold.
 *
 * <p>The default threshold is 512 MiB of host memory; set it with the system property {@code
 * ndrt.memory.pressure.threshold} (bytes, 0 to turn it off) or {@link #setPressureThreshold(long)}.
 */
public final class Memory {
  private Memory() {}

  /** Default threshold for the GC hook, bytes. */
  public static final long DEFAULT_PRESSURE_THRESHOLD = 512L << 20;

  private static final AtomicLong GC_REQUESTS = new AtomicLong();
  private static volatile long pressureThreshold;
  private static boolean configured; // guarded by Memory.class: the user chose; no default then
  private static volatile long maxWaitNanos = 1_000_000_000L;
  private static final ReentrantLock COLLECTING = new ReentrantLock();
  static volatile boolean collecting; // new tensors wait (Tensor's constructor): see onPressure
  private static long backoffFrom; // guarded by COLLECTING: in use after a collection that found little

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
   * Runs the garbage collector and releases the unreachable tensors it finds, on the allocating
   * thread, whenever native host memory in use passes {@code bytes} (see above); 0 turns it off.
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
   * The longest the GC hook waits, after {@link System#gc()}, for the collection to be over (default
   * 1000 ms). Only where System.gc() does not collect before returning does it wait at all ({@code
   * -XX:+ExplicitGCInvokesConcurrent}; with {@code -XX:+DisableExplicitGC}, the whole limit each time).
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
   * The GC hook, on the allocating thread. Releasing what the collector found is done here, not left
   * to the cleaner thread alone, and the runtime calls again after every eighth of the threshold of
   * growth: the allocating thread gets no further than that past the point where it must collect.
   */
  private static void onPressure(long inUse) {
    long threshold = pressureThreshold;
    NativeReleaser.drain();
    if (threshold == 0 || hostInUse() < threshold) {
      return;
    }
    COLLECTING.lock(); // another thread is collecting: wait for it (back-pressure), then look again
    try {
      NativeReleaser.drain();
      long now = hostInUse();
      backoffFrom = Math.min(backoffFrom, now);
      if (now < threshold || now - backoffFrom < threshold) {
        return;
      }
      // Other threads wait at their next new Tensor until this one has released what the collection
      // found, or they would allocate as fast as it releases.
      collecting = true;
      try {
        collect();
      } finally {
        collecting = false;
      }
      long after = hostInUse();
      // A collection that freed half a threshold or more was worth it: the next call over the
      // threshold collects again. One that freed less found mostly live memory: wait until in use
      // has grown by a threshold more, or a program holding that much would collect at every call.
      backoffFrom = now - after >= threshold / 2 ? 0 : after;
    } finally {
      COLLECTING.unlock();
    }
  }

  /**
   * System.gc(), then releases on this thread everything it found. A marker, unreachable before the
   * collection, tells when the collection is over: at once where System.gc() collects before
   * returning (the default), later where it only starts a concurrent cycle.
   */
  private static void collect() {
    GC_REQUESTS.incrementAndGet();
    NativeReleaser.Ref marker = NativeReleaser.register(new Object(), 0);
    System.gc();
    long deadline = System.nanoTime() + maxWaitNanos;
    try {
      while (!marker.cleared()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        NativeReleaser.releaseNext(Math.min(10, left / 1_000_000L)); // meanwhile, what earlier ones found
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    NativeReleaser.releaseCleared();
  }

  /** Blocks until the collection in progress (if any) is over. */
  static void awaitCollection() {
    COLLECTING.lock();
    COLLECTING.unlock();
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
