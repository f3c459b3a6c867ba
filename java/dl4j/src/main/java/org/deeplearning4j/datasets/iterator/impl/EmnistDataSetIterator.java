package org.deeplearning4j.datasets.iterator.impl;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.deeplearning4j.resources.utils.EMnistSet;
import org.ndrt.dl4j.datasets.InMemoryDataSetIterator;

/**
 * EMNIST minibatches, as Deeplearning4j's EmnistDataSetIterator: features f32 [mb, 784] (pixel / 255,
 * or binarized), labels one-hot over the split's classes. ndrt does not download EMNIST: the files
 * must already be where Deeplearning4j keeps them, {@code ~/.deeplearning4j/data/EMNIST/} (or
 * {@code <org.deeplearning4j.resources.directory>/data/EMNIST/}, or the folder given to the
 * seven-argument constructor), named {@code emnist-<split>-<train|test>-<images-idx3|labels-idx1>-ubyte}
 * (.gz or not) with split byclass (COMPLETE), bymerge (MERGE), balanced, letters, digits or mnist;
 * otherwise the constructor throws an IOException saying which files to put where. The images are
 * used as they are in the files (EMNIST stores them transposed; Deeplearning4j does not turn them).
 * LETTERS labels count from 1 in the files and are served from 0.
 */
public class EmnistDataSetIterator extends InMemoryDataSetIterator {
  private static final long serialVersionUID = 1L;
  private final EMnistSet dataSet;

  public EmnistDataSetIterator(EMnistSet dataSet, int batch, boolean train) throws IOException {
    this(dataSet, batch, train, System.currentTimeMillis());
  }

  public EmnistDataSetIterator(EMnistSet dataSet, int batchSize, boolean train, long seed) throws IOException {
    this(dataSet, batchSize, false, train, true, seed);
  }

  public EmnistDataSetIterator(EMnistSet dataSet, int batch, boolean binarize, boolean train, boolean shuffle, long rngSeed)
      throws IOException {
    this(dataSet, batch, binarize, train, shuffle, rngSeed, null);
  }

  public EmnistDataSetIterator(EMnistSet dataSet, int batch, boolean binarize, boolean train, boolean shuffle,
      long rngSeed, File topLevelDir) throws IOException {
    this(dataSet, load(dataSet, topLevelDir == null ? defaultDir() : topLevelDir.toPath(), train, binarize), batch,
        shuffle, rngSeed);
  }

  private EmnistDataSetIterator(EMnistSet set, Object[] data, int batch, boolean shuffle, long seed) {
    super((float[]) data[0], (int[]) data[1], 784, numLabels(set), batch, -1, shuffle, seed, getLabels(set));
    this.dataSet = set;
  }

  /** Deeplearning4j's EMNIST folder: {@code <resources dir, default ~/.deeplearning4j>/data/EMNIST}. */
  public static Path defaultDir() {
    String base = System.getProperty("org.deeplearning4j.resources.directory");
    Path root = base != null ? Path.of(base) : Path.of(System.getProperty("user.home"), ".deeplearning4j");
    return root.resolve("data").resolve("EMNIST");
  }

  private static String fileName(EMnistSet set, boolean train, boolean images) {
    String split;
    switch (set) {
      case COMPLETE: split = "byclass"; break;
      case MERGE: split = "bymerge"; break;
      default: split = set.name().toLowerCase(java.util.Locale.ROOT);
    }
    return "emnist-" + split + "-" + (train ? "train" : "test") + (images ? "-images-idx3-ubyte" : "-labels-idx1-ubyte");
  }

  private static Object[] load(EMnistSet set, Path dir, boolean train, boolean binarize) throws IOException {
    String imagesName = fileName(set, train, true);
    String labelsName = fileName(set, train, false);
    Path images = find(dir, imagesName);
    Path labels = find(dir, labelsName);
    if (images == null || labels == null) {
      throw new IOException("EMNIST " + set + " (" + (train ? "train" : "test") + ") is not in " + dir.toAbsolutePath()
          + ": ndrt cannot download EMNIST (Deeplearning4j fetches it from the network). Put " + imagesName + ".gz and "
          + labelsName + ".gz (the files of the EMNIST gzip distribution, https://www.nist.gov/itl/products-and-services/"
          + "emnist-dataset; plain IDX files work too) into " + dir.toAbsolutePath());
    }
    int[] n = new int[1];
    float[] f = readImages(images, binarize, n);
    int[] l = readLabels(labels, set == EMnistSet.LETTERS ? 1 : 0, numLabels(set));
    if (l.length != n[0] || f.length != n[0] * 784) {
      throw new IOException(images + " / " + labels + ": " + n[0] + " images and " + l.length
          + " labels (expected 28x28 images, as many as labels)");
    }
    return new Object[] {f, l};
  }

  public static int numExamplesTrain(EMnistSet set) {
    switch (set) {
      case COMPLETE: case MERGE: return 697932;
      case BALANCED: return 112800;
      case LETTERS: return 88800;
      case DIGITS: return 240000;
      case MNIST: return 60000;
      default: throw new IllegalArgumentException("Unknown EMNIST set: " + set);
    }
  }

  public static int numExamplesTest(EMnistSet set) {
    switch (set) {
      case COMPLETE: case MERGE: return 116323;
      case BALANCED: return 18800;
      case LETTERS: return 14800;
      case DIGITS: return 40000;
      case MNIST: return 10000;
      default: throw new IllegalArgumentException("Unknown EMNIST set: " + set);
    }
  }

  public static int numLabels(EMnistSet set) {
    return getLabelsArray(set).length;
  }

  public static char[] getLabelsArray(EMnistSet set) {
    switch (set) {
      case COMPLETE: return "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".toCharArray();
      case MERGE: case BALANCED: return "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabdefghnqrt".toCharArray();
      case LETTERS: return "ABCDEFGHIJKLMNOPQRSTUVWXYZ".toCharArray();
      case DIGITS: case MNIST: return "0123456789".toCharArray();
      default: throw new IllegalArgumentException("Unknown EMNIST set: " + set);
    }
  }

  public static List<String> getLabels(EMnistSet set) {
    List<String> out = new ArrayList<>();
    for (char c : getLabelsArray(set)) {
      out.add(String.valueOf(c));
    }
    return out;
  }

  /** Whether every class has the same number of examples (BALANCED, DIGITS, MNIST). */
  public static boolean isBalanced(EMnistSet set) {
    return set == EMnistSet.BALANCED || set == EMnistSet.DIGITS || set == EMnistSet.MNIST;
  }

  public char[] getLabelsArrays() {
    return getLabelsArray(dataSet);
  }
}
