package org.ndrt.distributed;

import org.ndrt.Tensor;

/**
 * A group of ranks and the collectives {@link DistributedTrainer} needs, whatever carries them:
 * {@link Communicator} (MPI through the native runtime) or {@link TcpCommunicator} (plain TCP
 * sockets in Java, for hosts without MPI such as Spark executors).
 *
 * <p>Every rank of the group must make the same collective calls in the same order, with tensors
 * of the same dtype and shape. Calls on one group run in the order they are made, asynchronous ones
 * included. A peer that died or stopped answering fails the waiting collective within the group's
 * timeout with an {@link org.ndrt.BackendException}; the group is broken from then on.
 */
public interface Collectives extends AutoCloseable {
  /** This rank, 0 .. size() - 1. */
  int rank();

  /** The number of ranks in the group. */
  int size();

  /** In place: {@code t} becomes {@code op} over the group's {@code t} (same dtype and shape everywhere). */
  void allreduce(Tensor t, ReduceOp op);

  /** In place: every rank's {@code t} becomes rank {@code root}'s. */
  void broadcast(Tensor t, int root);

  /** Returns when every rank of the group has called it. */
  void barrier();

  /**
   * Starts an allreduce of {@code tensors} (one dtype) as one collective and returns at once. The
   * tensors must be neither read nor written until {@link Pending#await()} has returned.
   */
  Pending allreduceAsync(ReduceOp op, Tensor... tensors);

  /** Releases the group's resources (idempotent). */
  @Override
  void close();

  /**
   * An asynchronous collective in flight. {@link #await()} waits for it and throws its error (again
   * on every later call); {@link #close()} waits too when nobody has. Not thread-safe.
   */
  interface Pending extends AutoCloseable {
    /** Waits until the collective is complete: every tensor holds the result. */
    void await();

    /** Whether the collective has completed (true after {@link #await()}), without waiting. */
    boolean isDone();

    /**
     * Waits for the collective unless {@link #await()} did; throws its error only when nothing has
     * waited for it yet.
     */
    @Override
    void close();
  }
}
