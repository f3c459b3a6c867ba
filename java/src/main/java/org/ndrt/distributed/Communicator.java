package org.ndrt.distributed;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import org.ndrt.NdrtException;
import org.ndrt.Tensor;
import org.ndrt.capi.NdrtC;

/**
 * A group of processes and the collectives between them (the C ABI's {@code ndrt_comm_*},
 * {@code ndrt_allreduce} ...), over MPI. The processes are started by a launcher:
 *
 * <pre>
 * packaging/mpirun.sh -np 2 java -cp ndrt.jar my.Main
 * </pre>
 *
 * <pre>{@code
 * try (Communicator world = Communicator.world();
 *      Tensor t = Tensor.from(new float[] {world.rank() + 1f}, 1)) {
 *   world.allreduce(t, ReduceOp.SUM);       // in place: 3 on both ranks of a 2-process job
 * }
 * }</pre>
 *
 * <p>Every process of the group must make the same collective calls in the same order, with
 * tensors of the same dtype and shape (by default the runtime checks this first, {@code
 * dist.verify}, and fails with an {@link org.ndrt.InvalidArgumentException} naming the ranks that
 * disagree). Tensors are on the calling thread's current device. A peer that died or stopped
 * answering fails the waiting collective after {@code dist.timeout_s} seconds (default 300) with a
 * {@link org.ndrt.BackendException}; the communicator is broken from then on.
 *
 * <p>Without the MPI module ({@code libndrt_mpi.so}, or libmpi) every call fails with a {@link
 * org.ndrt.NotSupportedException} ({@code NDRT_ERR_NOT_CONFIGURED}) saying what is missing.
 *
 * <p>One handle per {@code Communicator}: {@link #close()} releases it; a communicator never closed
 * is released after the garbage collector finds it unreachable. Calls on one communicator run in
 * the order they are made; two threads using one communicator at once must order their calls
 * themselves (or use {@link #split} for independent groups).
 *
 * <p>The MPI transport of {@link Collectives}; {@link TcpCommunicator} is the other.
 */
public final class Communicator implements Collectives {
  static final Cleaner CLEANER = Cleaner.create(r -> {
    Thread t = new Thread(r, "ndrt-dist-cleaner");
    t.setDaemon(true);
    return t;
  });

  /** Releases one communicator handle; holds no reference to the Communicator. */
  private static final class Release implements Runnable {
    private final long handle;

    Release(long handle) {
      this.handle = handle;
    }

    @Override
    public void run() {
      try {
        NdrtC.comm_release(handle);
      } catch (NdrtException e) {
        // released already through the raw API
      }
    }
  }

  private final long handle;
  private final int rank;
  private final int size;
  private final int localRank;
  private final Cleaner.Cleanable cleanable;
  private volatile boolean closed;

  private Communicator(long handle) {
    this.rank = NdrtC.comm_rank(handle);
    this.size = NdrtC.comm_size(handle);
    this.localRank = NdrtC.comm_local_rank(handle);
    this.handle = handle;
    this.cleanable = CLEANER.register(this, new Release(handle));
  }

  private static Communicator adopt(long handle) {
    try {
      return new Communicator(handle);
    } catch (RuntimeException | Error e) {
      NdrtC.comm_release(handle);
      throw e;
    }
  }

  /**
   * A new handle to the group of every process the launcher started (the first call initialises
   * MPI; the runtime finalises it at exit).
   *
   * @throws org.ndrt.NotSupportedException without the MPI module or libmpi
   * @throws org.ndrt.BackendException when MPI cannot start (not launched by mpirun, ...)
   */
  public static Communicator world() {
    return adopt(NdrtC.comm_world());
  }

  /** This process's rank in the group, 0 .. size() - 1. */
  @Override
  public int rank() {
    return rank;
  }

  /** The number of processes in the group. */
  @Override
  public int size() {
    return size;
  }

  /** This process's rank among the group's processes on this host (to pick a device). */
  public int localRank() {
    return localRank;
  }

  /**
   * Collective: the processes passing the same {@code color} form a new group, ranked by {@code key}
   * then by their rank here.
   *
   * @return the new group, or null for a process passing {@code color < 0} (it joins none)
   */
  public Communicator split(int color, int key) {
    long h = NdrtC.comm_split(handle(), color, key);
    Reference.reachabilityFence(this);
    return h == 0 ? null : adopt(h);
  }

  /** In place: {@code t} becomes {@code op} over the group's {@code t} (same dtype and shape everywhere). */
  @Override
  public void allreduce(Tensor t, ReduceOp op) {
    long th = tensor(t, "allreduce");
    try {
      NdrtC.allreduce(handle(), th, op(op, "allreduce").code());
    } finally {
      Reference.reachabilityFence(t);
      Reference.reachabilityFence(this);
    }
  }

  /** In place: every rank's {@code t} becomes rank {@code root}'s. */
  @Override
  public void broadcast(Tensor t, int root) {
    long th = tensor(t, "broadcast");
    checkRoot(root);
    try {
      NdrtC.broadcast(handle(), th, root);
    } finally {
      Reference.reachabilityFence(t);
      Reference.reachabilityFence(this);
    }
  }

  /**
   * {@code out} = the ranks' {@code in} concatenated along axis 0 in rank order: {@code in [n, ...]}
   * gives {@code out [size * n, ...]} (a rank-0 {@code in} gives {@code out [size]}).
   */
  public void allgather(Tensor in, Tensor out) {
    long ih = tensor(in, "allgather (in)");
    long oh = tensor(out, "allgather (out)");
    try {
      NdrtC.allgather(handle(), ih, oh);
    } finally {
      Reference.reachabilityFence(in);
      Reference.reachabilityFence(out);
      Reference.reachabilityFence(this);
    }
  }

  /** {@code out} = block {@code rank()} of {@code op} over the ranks' {@code in}: {@code in [size * n, ...]} gives {@code out [n, ...]}. */
  public void reduceScatter(Tensor in, Tensor out, ReduceOp op) {
    long ih = tensor(in, "reduceScatter (in)");
    long oh = tensor(out, "reduceScatter (out)");
    try {
      NdrtC.reduce_scatter(handle(), ih, oh, op(op, "reduceScatter").code());
    } finally {
      Reference.reachabilityFence(in);
      Reference.reachabilityFence(out);
      Reference.reachabilityFence(this);
    }
  }

  /** Returns when every process of the group has called it. */
  @Override
  public void barrier() {
    try {
      NdrtC.barrier(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Starts an allreduce of {@code tensors} (one dtype) as one collective (a bucket: packed into one
   * buffer unless there is one tensor) and returns at once. The tensors must be neither read nor
   * written until {@link Pending#await()} has returned; the Pending keeps them reachable until then.
   */
  @Override
  public Pending allreduceAsync(ReduceOp op, Tensor... tensors) {
    op(op, "allreduceAsync");
    if (tensors == null || tensors.length == 0) {
      throw new IllegalArgumentException("Communicator.allreduceAsync: need at least one tensor");
    }
    long[] hs = new long[tensors.length];
    for (int i = 0; i < tensors.length; ++i) {
      hs[i] = tensor(tensors[i], "allreduceAsync (tensor " + i + ")");
    }
    Tensor[] kept = tensors.clone();
    long event;
    try {
      event = NdrtC.allreduce_async(handle(), hs, op.code());
    } finally {
      Reference.reachabilityFence(kept);
      Reference.reachabilityFence(this);
    }
    return new Pending(event, kept, this);
  }

  /**
   * The raw handle, for calls through {@link org.ndrt.capi.NdrtC}; it stays this communicator's.
   *
   * @throws IllegalStateException if the communicator was closed
   */
  public long handle() {
    if (closed) {
      throw new IllegalStateException("Communicator: closed");
    }
    return handle;
  }

  /** Releases the handle (idempotent). Collectives already started run to their end. */
  @Override
  public void close() {
    closed = true;
    cleanable.clean();
  }

  @Override
  public String toString() {
    return "Communicator[rank " + rank + " of " + size + ", local rank " + localRank + (closed ? ", closed]" : "]");
  }

  private void checkRoot(int root) {
    if (root < 0 || root >= size) {
      throw new IllegalArgumentException("Communicator.broadcast: root " + root + " is not a rank of this group (0.."
          + (size - 1) + ")");
    }
  }

  private static long tensor(Tensor t, String what) {
    if (t == null) {
      throw new IllegalArgumentException("Communicator." + what + ": the tensor must not be null");
    }
    return t.handle();
  }

  private static ReduceOp op(ReduceOp op, String what) {
    if (op == null) {
      throw new IllegalArgumentException("Communicator." + what + ": the reduce op must not be null");
    }
    return op;
  }

  /**
   * An asynchronous collective in flight (the C ABI's event). {@link #await()} waits for it and
   * throws its error; {@link #close()} waits too when nobody has, then releases the event. Not
   * thread-safe.
   */
  public static final class Pending implements Collectives.Pending {
    /** Releases one event handle. */
    private static final class Release implements Runnable {
      private final long event;

      Release(long event) {
        this.event = event;
      }

      @Override
      public void run() {
        try {
          NdrtC.event_release(event);
        } catch (NdrtException e) {
          // released already
        }
      }
    }

    private final long event;
    private final Cleaner.Cleanable cleanable;
    private Tensor[] tensors; // reachable until the collective completed
    private Communicator comm;
    private boolean awaited;
    private boolean released;
    private RuntimeException failure;

    private Pending(long event, Tensor[] tensors, Communicator comm) {
      this.event = event;
      this.tensors = tensors;
      this.comm = comm;
      this.cleanable = CLEANER.register(this, new Release(event));
    }

    /**
     * Waits until the collective is complete: every tensor holds the result.
     *
     * @throws NdrtException the collective's own error (again on every later call)
     */
    @Override
    public void await() {
      if (!awaited) {
        if (released) {
          throw new IllegalStateException("Communicator.Pending: closed");
        }
        try {
          NdrtC.event_synchronize(event);
        } catch (RuntimeException e) {
          failure = e;
        } finally {
          awaited = true;
          Reference.reachabilityFence(tensors);
          tensors = null;
          comm = null;
        }
      }
      if (failure != null) {
        throw failure;
      }
    }

    /** Whether the collective has completed (true after {@link #await()}), without waiting. */
    @Override
    public boolean isDone() {
      if (awaited) {
        return true;
      }
      if (released) {
        throw new IllegalStateException("Communicator.Pending: closed");
      }
      return NdrtC.event_query(event);
    }

    /**
     * Waits for the collective unless {@link #await()} did, then releases the event. Throws the
     * collective's error only when nothing has waited for it yet (an error {@code await()} threw is
     * not thrown again).
     */
    @Override
    public void close() {
      if (released) {
        return;
      }
      try {
        if (!awaited) {
          await();
        }
      } finally {
        released = true;
        cleanable.clean();
      }
    }
  }
}
