package org.deeplearning4j.datasets.iterator.impl;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.datavec.api.io.labels.ParentPathLabelGenerator;
import org.datavec.api.records.reader.RecordReader;
import org.datavec.api.split.FileSplit;
import org.datavec.image.loader.BaseImageLoader;
import org.datavec.image.recordreader.ImageRecordReader;
import org.deeplearning4j.datasets.datavec.RecordReaderDataSetIterator;
import org.deeplearning4j.datasets.fetchers.DataSetType;

/**
 * CIFAR-10 minibatches, as Deeplearning4j 1.0.0-M2.1's Cifar10DataSetIterator: a RecordReaderDataSetIterator
 * over an ImageRecordReader of the PNG images Deeplearning4j keeps in {@code
 * ~/.deeplearning4j/data/cifar10/train/<class>/*.png} and {@code .../test/<class>/*.png} (the folder is
 * {@code <org.deeplearning4j.resources.directory>/data/cifar10} when that property is set): features f32
 * [mb, 3, 32, 32] with values 0..255 (no scaling, as in Deeplearning4j), labels one-hot [mb, 10] over
 * the class folders, files in an order shuffled by the seed (123 by default). ndrt does not download
 * CIFAR-10: without those folders the constructor throws an IllegalStateException naming them.
 * The constructor with an ImageTransform is not provided (ndrt-datavec has no ImageTransform).
 */
public class Cifar10DataSetIterator extends RecordReaderDataSetIterator {
  private static final long serialVersionUID = 1L;
  /** The classes, in folder (alphabetical) order. */
  private static final List<String> LABELS = Arrays.asList("airplane", "automobile", "bird", "cat", "deer", "dog",
      "frog", "horse", "ship", "truck");

  public Cifar10DataSetIterator(int batchSize) {
    this(batchSize, null, DataSetType.TRAIN);
  }

  public Cifar10DataSetIterator(int batchSize, DataSetType set) {
    this(batchSize, null, set);
  }

  public Cifar10DataSetIterator(int batchSize, int[] imgDim, DataSetType set) {
    this(batchSize, imgDim, set, 123L);
  }

  private Cifar10DataSetIterator(int batchSize, int[] imgDim, DataSetType set, long seed) {
    super(reader(imgDim, set, seed), batchSize, 1, 10);
  }

  /** Deeplearning4j's CIFAR-10 folder: {@code <resources dir, default ~/.deeplearning4j>/data/cifar10}. */
  public static Path defaultDir() {
    String base = System.getProperty("org.deeplearning4j.resources.directory");
    Path root = base != null ? Path.of(base) : Path.of(System.getProperty("user.home"), ".deeplearning4j");
    return root.resolve("data").resolve("cifar10");
  }

  private static RecordReader reader(int[] imgDim, DataSetType set, long seed) {
    if (imgDim != null && imgDim.length != 2) {
      throw new IllegalArgumentException("Invalid image dimensions: must be null or length 2. Got: " + Arrays.toString(imgDim));
    }
    if (set == DataSetType.VALIDATION) {
      throw new IllegalArgumentException("You will need to manually create and iterate a validation directory, "
          + "CIFAR-10 does not provide labels");
    }
    Path dir = defaultDir().resolve(set == DataSetType.TEST ? "test" : "train");
    if (!Files.isDirectory(dir)) {
      throw new IllegalStateException("CIFAR-10 is not in " + dir.toAbsolutePath() + ": ndrt cannot download it "
          + "(Deeplearning4j fetches datasets/cifar10_dl4j.v1.zip from https://dl4jdata.blob.core.windows.net/). Put the "
          + "images there as Deeplearning4j keeps them: " + defaultDir().toAbsolutePath() + "/train/<class>/*.png and "
          + defaultDir().toAbsolutePath() + "/test/<class>/*.png, one folder per class (" + String.join(", ", LABELS)
          + "), 32x32 RGB");
    }
    int h = imgDim == null ? 32 : imgDim[0];
    int w = imgDim == null ? 32 : imgDim[1];
    ImageRecordReader rr = new ImageRecordReader(h, w, 3, new ParentPathLabelGenerator());
    try {
      rr.initialize(new FileSplit(dir.toFile(), BaseImageLoader.ALLOWED_FORMATS, new Random(seed)));
    } catch (IOException e) {
      throw new IllegalStateException("CIFAR-10: cannot read the images in " + dir + ": " + e.getMessage(), e);
    }
    return rr;
  }

  /** The ten class names (the folder names, alphabetical); {@code categories} is accepted and ignored. */
  public static List<String> getLabels(boolean categories) {
    return LABELS;
  }
}
