package org.ndrt.data;

import java.util.NoSuchElementException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.ndrt.Device;

/**
 * Prepares the minibatches of another iterator ahead of time on a daemon thread named
 * {@value #THREAD_NAME}, keeping at most {@code prefetch} of them (default 2) in a queue: while the
 * network trains on one batch, the next ones are being decoded. Batches come in the source's order.
 *
 * <p>The thread starts on the first {@link #hasNext()}/{@link #next()} of an epoch, on the consumer's
 * current device (it attaches that {@link Device}, so the tensors land where the consumer's ops
 * run), and ends when the source's epoch is over. {@link #reset()} stops it, closes the batches it
 * had prepared, and resets the source. An exception thrown by the source surfaces on the consumer's
 * next {@code hasNext()}/{@code next()} as an {@link IllegalStateException} whose cause is the
 * original, until {@link #reset()}.
 *
 * <p>The source belongs to this iterator: nothing else may use it while the thread runs (its
 * {@code batchSize()}, {@code numExamples()} and {@code totalOutcomes()} are asked from the consumer
 * thread, and must not change), and {@link #close()} closes it. Use from one consumer thread.
 * Close the iterator when done: an unfinished epoch keeps a thread waiting otherwise.
 */
public final class AsyncDataSetIterator implements DataSetIterator {
  /** The prefetch thread's name. */
  public static final String THREAD_NAME = "ndrt-prefetch";
  /** Prefetched batches by default. */
  public static final int DEFAULT_PREFETCH = 2;

  private static final long POLL_MS = 20;

  private final DataSetIterator source;
  private final int prefetch;
  private final BlockingQueue<Item> queue;
  private Worker worker; // null: no thread for this epoch yet
  private Item pending; // taken from the queue, not yet handed out
  private boolean closed;

  /** What the worker hands over: a batch, the source's failure, or (both null) the end of the epoch. */
  private static final class Item {
    final DataSet data;
    final Throwable error;

    Item(DataSet data, Throwable error) {
      this.data = data;
      this.error = error;
    }
  }

  /** Wraps {@code source} with {@value #DEFAULT_PREFETCH} batches of prefetch. */
  public AsyncDataSetIterator(DataSetIterator source) {
    this(source, DEFAULT_PREFETCH);
  }

  /** Wraps {@code source}, preparing up to {@code prefetch} (>= 1) batches ahead. */
  public AsyncDataSetIterator(DataSetIterator source, int prefetch) {
    if (source == null) {
      throw new IllegalArgumentException("AsyncDataSetIterator: source must not be null");
    }
    if (prefetch < 1) {
      throw new IllegalArgumentException("AsyncDataSetIterator: prefetch must be >= 1, got " + prefetch);
    }
    this.source = source;
    this.prefetch = prefetch;
    this.queue = new ArrayBlockingQueue<>(prefetch);
  }

  /** The source's batches, one after another, until its epoch ends, it fails, or {@code stop} is set. */
  private final class Worker extends Thread {
    private final Device device;
    volatile boolean stop;

    Worker(Device device) {
      super(THREAD_NAME);
      setDaemon(true);
      this.device = device;
    }

    @Override
    public void run() {
      try {
        device.attach();
        while (!stop) {
          if (!source.hasNext()) {
            hand(new Item(null, null));
            return;
          }
          DataSet ds = source.next();
          if (!hand(new Item(ds, null))) {
            ds.close();
            return;
          }
        }
      } catch (Throwable t) { // anything, Errors included: the consumer must hear of it
        if (!stop) {
          hand(new Item(null, t));
        }
      }
    }

    /** Queues an item, waiting for room; false when told to stop first. No interrupts: they could break the source. */
    private boolean hand(Item item) {
      try {
        while (!stop) {
          if (queue.offer(item, POLL_MS, TimeUnit.MILLISECONDS)) {
            return true;
          }
        }
      } catch (InterruptedException e) {
        // nobody interrupts this thread; treat it as a stop
      }
      return false;
    }
  }

  @Override
  public boolean hasNext() {
    Item item = peek();
    if (item.error != null) {
      throw new IllegalStateException("AsyncDataSetIterator: the source iterator failed on the prefetch thread: "
          + item.error, item.error);
    }
    return item.data != null;
  }

  @Override
  public DataSet next() {
    if (!hasNext()) {
      throw new NoSuchElementException("AsyncDataSetIterator: the epoch is over (call reset() for the next one)");
    }
    DataSet ds = pending.data;
    pending = null;
    return ds;
  }

  /** The next item, waiting for the worker (started if need be). */
  private Item peek() {
    if (closed) {
      throw new IllegalStateException("AsyncDataSetIterator: closed");
    }
    if (pending != null) {
      return pending;
    }
    if (worker == null) {
      worker = new Worker(Device.current());
      worker.start();
    }
    try {
      while (pending == null) {
        pending = queue.poll(POLL_MS, TimeUnit.MILLISECONDS);
        if (pending == null && !worker.isAlive() && queue.isEmpty()) {
          // The worker always queues an end or an error before it ends; this is a safety net.
          pending = new Item(null, new IllegalStateException("the prefetch thread ended without a result"));
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("AsyncDataSetIterator: interrupted while waiting for the next batch", e);
    }
    return pending;
  }

  /** Stops the worker, closes what it prepared, resets the source; the next epoch starts on demand. */
  @Override
  public void reset() {
    if (closed) {
      throw new IllegalStateException("AsyncDataSetIterator: closed");
    }
    stopWorker();
    source.reset();
  }

  /** Stops the thread, closes the prepared batches, then closes the source. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      stopWorker();
    } finally {
      source.close();
    }
  }

  private void stopWorker() {
    if (worker != null) {
      worker.stop = true;
      boolean interrupted = false;
      while (worker.isAlive()) {
        try {
          worker.join(); // it finishes the source call it is in, then sees stop
        } catch (InterruptedException e) {
          interrupted = true; // keep waiting: the source must be idle before anyone touches it
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      worker = null;
    }
    if (pending != null && pending.data != null) {
      pending.data.close();
    }
    pending = null;
    for (Item item; (item = queue.poll()) != null; ) {
      if (item.data != null) {
        item.data.close();
      }
    }
  }

  /** Batches prepared ahead at most. */
  public int prefetch() {
    return prefetch;
  }

  @Override
  public int batchSize() {
    return source.batchSize();
  }

  @Override
  public long numExamples() {
    return source.numExamples();
  }

  @Override
  public int totalOutcomes() {
    return source.totalOutcomes();
  }
}
