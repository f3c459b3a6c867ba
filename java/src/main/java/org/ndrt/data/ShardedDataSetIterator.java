package org.ndrt.data;

import java.util.NoSuchElementException;
import java.util.Random;

/**
 * One process's share of each epoch in data-parallel training ({@code
 * org.ndrt.distributed.DistributedTrainer}): rank {@code r} of {@code size} processes, {@code b}
 * examples per minibatch on each.
 *
 * <p><b>Order.</b> Epoch {@code e} (0 first, +1 on each {@link #reset()}) visits the source in the
 * order of a Fisher-Yates shuffle with {@code new Random(seed + 1 + e)} (as {@link
 * MnistDataSetIterator}), or in source order with {@code shuffle(false)}. This permutation is cut
 * into <em>global batches</em> of {@code size * b} examples, and rank {@code r}'s minibatch {@code
 * j} is positions {@code [j * size * b + r * b, j * size * b + (r + 1) * b)} of it. So the ranks'
 * minibatches {@code j} together are exactly minibatch {@code j} of the same iterator with {@code
 * size = 1} and batch {@code size * b}: data-parallel training with gradient averaging sees the
 * minibatches a single process with the global batch would see. Everything is a function of
 * (seed, epoch, rank, size, b): the same on every run and every host, with nothing to exchange.
 *
 * <p><b>The last partial global batch</b> ({@code N mod (size * b)} examples) is dropped by
 * default, so every rank makes the same number of minibatches per epoch, {@code floor(N / (size *
 * b))}, each of exactly {@code b} examples: a trainer whose ranks meet at every step would hang if
 * one rank made a step more. The dropped examples differ from epoch to epoch when shuffling (none
 * is left out for good); without shuffling the same tail is left out every epoch. With {@code
 * dropLast(false)} (for evaluation, where ranks do not meet per minibatch) the tail is shared out
 * in rank order in pieces of at most {@code b}: each example is then visited exactly once per epoch
 * over all ranks, and ranks may make different numbers of minibatches.
 *
 * <p><b>Resuming.</b> {@link #seek(int, int)} puts the iterator at minibatch {@code batch} of epoch
 * {@code epoch}, as if it had got there by {@code next()} and {@code reset()} calls.
 *
 * <p>Each {@link #next()} makes new tensors (on the calling thread's current device) that the
 * caller owns. Not thread-safe.
 */
public final class ShardedDataSetIterator implements DataSetIterator {
  private final ExampleSource source;
  private final int batchSize;
  private final int rank;
  private final int size;
  private final long seed;
  private final boolean shuffle;
  private final boolean dropLast;
  private final int featureSize;
  private final long[] featureShape;
  private final int labelWidth;
  private final int[] order;
  private final int fullSteps; // whole global batches per epoch
  private final int tail; // this rank's examples in the partial global batch (0 with dropLast)
  private int epoch;
  private int cursor; // minibatches taken this epoch

  /**
   * Shuffled, last partial global batch dropped (see the class comment).
   *
   * @param source the examples of the whole data set (the same on every rank)
   * @param batchSize examples per minibatch on this rank
   * @param rank this process's rank, 0 .. size - 1
   * @param size the number of processes
   * @param seed the shuffles' seed (the same on every rank)
   * @throws IllegalArgumentException if an argument is out of range, or there is not one global
   *     batch of data
   */
  public ShardedDataSetIterator(ExampleSource source, int batchSize, int rank, int size, long seed) {
    this(builder(source).batchSize(batchSize).rank(rank, size).seed(seed));
  }

  /** A builder over {@code source} (see {@link Builder} for the defaults). */
  public static Builder builder(ExampleSource source) {
    return new Builder(source);
  }

  private ShardedDataSetIterator(Builder b) {
    if (b.source == null) {
      throw new IllegalArgumentException("ShardedDataSetIterator: the source must not be null");
    }
    if (b.batchSize < 1) {
      throw new IllegalArgumentException("ShardedDataSetIterator: batchSize must be >= 1, got " + b.batchSize);
    }
    if (b.size < 1 || b.rank < 0 || b.rank >= b.size) {
      throw new IllegalArgumentException("ShardedDataSetIterator: need 0 <= rank < size, got rank " + b.rank + ", size " + b.size);
    }
    this.source = b.source;
    this.batchSize = b.batchSize;
    this.rank = b.rank;
    this.size = b.size;
    this.seed = b.seed;
    this.shuffle = b.shuffle;
    this.dropLast = b.dropLast;
    this.featureShape = source.featureShape();
    this.featureSize = source.featureSize();
    this.labelWidth = source.labelWidth();
    int n = source.size();
    long global = (long) size * batchSize;
    this.fullSteps = (int) (n / global);
    int rest = (int) (n - fullSteps * global);
    this.tail = dropLast ? 0 : Math.max(0, Math.min(batchSize, rest - rank * batchSize));
    if (dropLast && fullSteps == 0) {
      throw new IllegalArgumentException("ShardedDataSetIterator: " + n + " examples are fewer than one global batch ("
          + size + " ranks x " + batchSize + " = " + global + "): every minibatch would be dropped");
    }
    this.order = new int[n];
    startEpoch(0);
  }

  private void startEpoch(int e) {
    epoch = e;
    cursor = 0;
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    if (shuffle) {
      Random rng = new Random(seed + 1 + e);
      for (int i = order.length - 1; i > 0; i--) {
        int j = rng.nextInt(i + 1);
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
      }
    }
  }

  /** Minibatches this rank makes per epoch. */
  public int stepsPerEpoch() {
    return fullSteps + (tail > 0 ? 1 : 0);
  }

  @Override
  public boolean hasNext() {
    return cursor < stepsPerEpoch();
  }

  @Override
  public DataSet next() {
    if (!hasNext()) {
      throw new NoSuchElementException("ShardedDataSetIterator: the epoch is over (call reset() for the next one)");
    }
    long global = (long) size * batchSize;
    int start = (int) (cursor * global + (long) rank * batchSize);
    int n = cursor < fullSteps ? batchSize : tail;
    float[] features = new float[n * featureSize];
    float[] labels = new float[n * labelWidth];
    for (int r = 0; r < n; r++) {
      source.copy(order[start + r], features, r * featureSize, labels, r * labelWidth);
    }
    ++cursor;
    long[] shape = new long[featureShape.length + 1];
    shape[0] = n;
    System.arraycopy(featureShape, 0, shape, 1, featureShape.length);
    return ListDataSetIterator.dataSet(features, shape, labels, new long[] {n, labelWidth});
  }

  /** Starts the next epoch (reshuffled when shuffling is on). */
  @Override
  public void reset() {
    startEpoch(epoch + 1);
  }

  /**
   * Goes to minibatch {@code batch} (0 .. {@link #stepsPerEpoch()}) of epoch {@code epoch}: the
   * next {@code next()} returns what it would after {@code epoch} resets and {@code batch}
   * minibatches.
   */
  public void seek(int epoch, int batch) {
    if (epoch < 0 || batch < 0 || batch > stepsPerEpoch()) {
      throw new IllegalArgumentException("ShardedDataSetIterator.seek: need epoch >= 0 and 0 <= batch <= " + stepsPerEpoch()
          + ", got epoch " + epoch + ", batch " + batch);
    }
    startEpoch(epoch);
    cursor = batch;
  }

  /** The current epoch (0 until the first {@link #reset()}). */
  public int epoch() {
    return epoch;
  }

  /** Minibatches taken in the current epoch. */
  public int position() {
    return cursor;
  }

  public int rank() {
    return rank;
  }

  public int size() {
    return size;
  }

  /** Whether the last partial global batch is dropped (see the class comment). */
  public boolean dropsLast() {
    return dropLast;
  }

  /** Examples per minibatch on this rank. */
  @Override
  public int batchSize() {
    return batchSize;
  }

  /** Examples this rank visits per epoch. */
  @Override
  public long numExamples() {
    return (long) fullSteps * batchSize + tail;
  }

  @Override
  public int totalOutcomes() {
    return labelWidth;
  }

  /** Options of a {@link ShardedDataSetIterator}. */
  public static final class Builder {
    private final ExampleSource source;
    private int batchSize = 32;
    private int rank;
    private int size = 1;
    private long seed = 123;
    private boolean shuffle = true;
    private boolean dropLast = true;

    private Builder(ExampleSource source) {
      this.source = source;
    }

    /** Examples per minibatch on each rank (default 32). */
    public Builder batchSize(int batchSize) {
      this.batchSize = batchSize;
      return this;
    }

    /** This process's rank and the number of processes (default 0 of 1). */
    public Builder rank(int rank, int size) {
      this.rank = rank;
      this.size = size;
      return this;
    }

    /** Seed of the per-epoch shuffles (default 123). */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** Reshuffle every epoch (default true). */
    public Builder shuffle(boolean shuffle) {
      this.shuffle = shuffle;
      return this;
    }

    /** Drop the last partial global batch (default true; false for evaluation: see the class comment). */
    public Builder dropLast(boolean dropLast) {
      this.dropLast = dropLast;
      return this;
    }

    public ShardedDataSetIterator build() {
      return new ShardedDataSetIterator(this);
    }
  }
}
