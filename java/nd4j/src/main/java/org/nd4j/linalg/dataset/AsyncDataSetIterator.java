package org.nd4j.linalg.dataset;

import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import org.nd4j.linalg.dataset.api.DataSetPreProcessor;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;

/**
 * ND4J's AsyncDataSetIterator: one background thread takes DataSets from the wrapped iterator (its
 * pre-processor applied there) into a bounded queue, so loading overlaps training. Same order as the
 * wrapped iterator; an exception on the loading thread is rethrown by the {@code next()} that would
 * have returned that element. {@code reset()} stops the thread, resets the wrapped iterator and starts
 * a new one. ND4J's workspace options are accepted and ignored (ndrt has no workspaces).
 */
public class AsyncDataSetIterator implements DataSetIterator {
  private static final long serialVersionUID = 1L;
  private static final Object END = new Object();

  private final DataSetIterator backedIterator;
  private final int queueSize;
  private transient BlockingQueue<Object> queue;
  private transient Thread loader;
  private transient Object peeked;

  public AsyncDataSetIterator(DataSetIterator baseIterator) {
    this(baseIterator, 8);
  }

  public AsyncDataSetIterator(DataSetIterator baseIterator, int queueSize) {
    this(baseIterator, queueSize, true);
  }

  public AsyncDataSetIterator(DataSetIterator baseIterator, int queueSize, boolean useWorkspace) {
    if (queueSize < 2) {
      throw new IllegalArgumentException("AsyncDataSetIterator: the queue size must be at least 2, got " + queueSize);
    }
    this.backedIterator = baseIterator;
    this.queueSize = queueSize;
  }

  private void start() {
    if (loader != null) {
      return;
    }
    BlockingQueue<Object> q = new ArrayBlockingQueue<>(queueSize);
    queue = q;
    loader = new Thread(() -> {
      Object last = END;
      try {
        while (backedIterator.hasNext()) {
          q.put(backedIterator.next());
        }
      } catch (InterruptedException e) {
        return; // reset() or shutdown(): the consumer is gone
      } catch (RuntimeException | Error e) {
        last = e;
      }
      try {
        q.put(last);
      } catch (InterruptedException ignored) {
        // reset() or shutdown() while the end marker waited: nobody reads it
      }
    }, "AsyncDataSetIterator-loader");
    loader.setDaemon(true);
    loader.start();
  }

  private Object peek() {
    start();
    if (peeked == null) {
      try {
        peeked = queue.take();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("AsyncDataSetIterator: interrupted while waiting for data", e);
      }
    }
    return peeked;
  }

  @Override
  public boolean hasNext() {
    Object o = peek();
    if (o instanceof RuntimeException) {
      throw (RuntimeException) o;
    }
    if (o instanceof Error) {
      throw (Error) o;
    }
    return o != END;
  }

  @Override
  public DataSet next() {
    if (!hasNext()) {
      throw new NoSuchElementException("AsyncDataSetIterator: no more data");
    }
    Object o = peeked;
    peeked = null;
    return (DataSet) o;
  }

  /** ND4J refuses this too: the minibatch size is the wrapped iterator's. */
  @Override
  public DataSet next(int num) {
    throw new UnsupportedOperationException("AsyncDataSetIterator.next(num): the wrapped iterator sets the batch size");
  }

  /** Stops the loading thread (waiting for it) and forgets what it had queued. */
  public void shutdown() {
    if (loader != null) {
      loader.interrupt();
      try {
        loader.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    loader = null;
    queue = null;
    peeked = null;
  }

  @Override
  public void reset() {
    shutdown();
    backedIterator.reset();
  }

  @Override public int inputColumns() { return backedIterator.inputColumns(); }
  @Override public int totalOutcomes() { return backedIterator.totalOutcomes(); }
  @Override public boolean resetSupported() { return backedIterator.resetSupported(); }
  @Override public boolean asyncSupported() { return false; }
  @Override public int batch() { return backedIterator.batch(); }
  @Override public void setPreProcessor(DataSetPreProcessor preProcessor) { backedIterator.setPreProcessor(preProcessor); }
  @Override public DataSetPreProcessor getPreProcessor() { return backedIterator.getPreProcessor(); }
  @Override public List<String> getLabels() { return backedIterator.getLabels(); }

  @Override
  public void remove() {
    throw new UnsupportedOperationException("AsyncDataSetIterator.remove");
  }
}
