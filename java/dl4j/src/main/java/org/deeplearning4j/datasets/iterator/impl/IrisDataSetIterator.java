package org.deeplearning4j.datasets.iterator.impl;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.nd4j.linalg.dataset.DataSet;
import org.ndrt.dl4j.datasets.InMemoryDataSetIterator;

/**
 * Fisher's Iris data, as Deeplearning4j's IrisDataSetIterator: the 150 examples in file order (50 of
 * each class, classes 0, 1, 2 in turn), features f32 [mb, 4] (sepal length, sepal width, petal length,
 * petal width, in cm), labels one-hot f32 [mb, 3]. The data ships in the jar
 * (org/ndrt/dl4j/datasets/iris.dat, the rows Deeplearning4j ships as iris.dat), so nothing is
 * downloaded. Not shuffled: shuffle a DataSet of it yourself, as Deeplearning4j's examples do.
 */
public class IrisDataSetIterator extends InMemoryDataSetIterator {
  private static final long serialVersionUID = 1L;
  /** Examples in the data set. */
  public static final int NUM_EXAMPLES = 150;
  private static final String RESOURCE = "/org/ndrt/dl4j/datasets/iris.dat";

  /** All 150 examples in one minibatch. */
  public IrisDataSetIterator() {
    this(150, 150);
  }

  /** The first {@code numExamples} examples, {@code batch} at a time. */
  public IrisDataSetIterator(int batch, int numExamples) {
    this(load(), batch, numExamples);
  }

  private IrisDataSetIterator(Object[] data, int batch, int numExamples) {
    super((float[]) data[0], (int[]) data[1], 4, 3, batch, numExamples, false, 0, null);
    if (numExamples > NUM_EXAMPLES) {
      throw new IllegalArgumentException("IrisDataSetIterator: numExamples " + numExamples + " > " + NUM_EXAMPLES
          + " (the Iris data set has " + NUM_EXAMPLES + " examples)");
    }
  }

  @Override
  public DataSet next() {
    return super.next();
  }

  /** The rows of the resource: {float[150 * 4] features, int[150] classes}. */
  private static Object[] load() {
    float[] f = new float[NUM_EXAMPLES * 4];
    int[] l = new int[NUM_EXAMPLES];
    int n = 0;
    try (InputStream in = IrisDataSetIterator.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("IrisDataSetIterator: " + RESOURCE + " is not on the class path (ndrt-dl4j.jar ships it)");
      }
      BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      for (String line; (line = r.readLine()) != null; ) {
        if (line.isBlank()) {
          continue;
        }
        String[] p = line.trim().split(",");
        if (p.length != 5 || n >= NUM_EXAMPLES) {
          throw new IllegalStateException("IrisDataSetIterator: " + RESOURCE + " line " + (n + 1) + " is not 4 values "
              + "and a class, or there are more than " + NUM_EXAMPLES + " rows: '" + line + "'");
        }
        for (int j = 0; j < 4; j++) {
          f[n * 4 + j] = Float.parseFloat(p[j]);
        }
        l[n++] = Integer.parseInt(p[4].trim());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("IrisDataSetIterator: reading " + RESOURCE, e);
    }
    if (n != NUM_EXAMPLES) {
      throw new IllegalStateException("IrisDataSetIterator: " + RESOURCE + " has " + n + " rows, expected " + NUM_EXAMPLES);
    }
    return new Object[] {f, l};
  }

  /** The class names of the rows' indices 0, 1, 2. */
  public static List<String> classNames() {
    List<String> names = new ArrayList<>();
    names.add("Iris-setosa");
    names.add("Iris-versicolor");
    names.add("Iris-virginica");
    return names;
  }
}
