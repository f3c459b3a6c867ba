package org.ndrt;

import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;

/**
 * Releases the runtime handles of Java objects (tensors, direct buffers) that were never closed, once
 * the collector finds them unreachable. It does what a {@link java.lang.ref.Cleaner} does, except
 * that any thread can do the releasing, not only its daemon thread {@code ndrt-cleaner}: drain the
 * queue, or, right after a collection, release every registered reference it cleared. The
 * memory-pressure hook ({@link Memory}) does both on the allocating thread, so a loop that allocates
 * faster than one cleaner thread releases is made to release what it dropped.
 */
final class NativeReleaser {
  private NativeReleaser() {}

  /** One registered handle: a phantom reference to its owner, linked in a list that keeps it alive. */
  static final class Ref extends PhantomReference<Object> {
    private final long handle; // 0: a marker (Memory's probe of the collector), nothing to release
    private Ref prev = this, next = this; // guarded by LIST; a removed Ref points at itself
    private volatile boolean done;

    private Ref(Object owner, long handle, ReferenceQueue<Object> q) {
      super(owner, q);
      this.handle = handle;
    }

    /** Whether the collector has found the owner unreachable (or the handle was released). */
    boolean cleared() {
      return done || refersTo(null);
    }
  }

  private static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();
  private static final Ref LIST = new Ref(null, 0, null); // sentinel of the doubly linked list

  static {
    Thread t = new Thread(NativeReleaser::cleanerLoop, "ndrt-cleaner");
    t.setDaemon(true);
    t.start();
  }

  /** Releases {@code handle} when {@code owner} becomes unreachable, unless {@link #release} ran first. */
  static Ref register(Object owner, long handle) {
    Ref r = new Ref(owner, handle, QUEUE);
    synchronized (LIST) {
      r.next = LIST.next;
      r.prev = LIST;
      LIST.next.prev = r;
      LIST.next = r;
    }
    return r;
  }

  /** Releases the handle now if nobody has (idempotent, any thread). */
  static void release(Ref r) {
    synchronized (LIST) {
      if (r.next == r) {
        return;
      }
      unlink(r);
    }
    finish(r);
  }

  private static void unlink(Ref r) { // holding LIST
    r.prev.next = r.next;
    r.next.prev = r.prev;
    r.prev = r;
    r.next = r;
  }

  private static void finish(Ref r) {
    r.clear(); // the collector need not process it any more
    if (r.handle != 0) {
      try {
        org.ndrt.capi.NdrtC.tensor_release(r.handle);
      } catch (NdrtException e) {
        // released already through the raw API: nothing left to do
      }
    }
    r.done = true;
  }

  /**
   * Releases every registered handle whose owner the collector has found unreachable: the collector
   * clears a phantom reference when it finds it, before the reference handler thread queues it, so
   * right after a collection this finds all of them, however far behind that thread is.
   */
  static int releaseCleared() {
    ArrayList<Ref> found = new ArrayList<>();
    synchronized (LIST) {
      for (Ref r = LIST.next; r != LIST; ) {
        Ref next = r.next;
        if (r.refersTo(null)) {
          unlink(r);
          found.add(r);
        }
        r = next;
      }
    }
    for (Ref r : found) {
      finish(r);
    }
    return found.size();
  }

  /** Releases everything the collector has queued so far, on the calling thread; returns how many. */
  static int drain() {
    int n = 0;
    for (Reference<?> r; (r = QUEUE.poll()) != null; ++n) {
      release((Ref) r);
    }
    return n;
  }

  /** Waits up to {@code millis} for one queued reference and releases it; false if none came. */
  static boolean releaseNext(long millis) throws InterruptedException {
    Reference<?> r = QUEUE.remove(Math.max(1, millis));
    if (r == null) {
      return false;
    }
    release((Ref) r);
    return true;
  }

  private static void cleanerLoop() {
    while (true) {
      try {
        release((Ref) QUEUE.remove());
      } catch (Throwable e) {
        // keep the thread alive: an interrupt or a failing release must not stop later releases
      }
    }
  }
}
