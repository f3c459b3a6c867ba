package org.ndrt.dl4j.datasets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.datasets.fetchers.DataSetType;
import org.deeplearning4j.datasets.iterator.impl.Cifar10DataSetIterator;
import org.deeplearning4j.datasets.iterator.impl.EmnistDataSetIterator;
import org.deeplearning4j.datasets.iterator.impl.IrisDataSetIterator;
import org.deeplearning4j.datasets.iterator.impl.MnistDataSetIterator;
import org.deeplearning4j.datasets.iterator.utilty.ListDataSetIterator;
import org.eclipse.deeplearning4j.resources.utils.EMnistSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.ndrt.data.IdxFile;
import org.ndrt.data.MnistNpm;

/** The built-in data set iterators: Iris (in the jar), MNIST (when present), CIFAR-10 / EMNIST refusals. */
class DatasetIteratorsTest {
  @TempDir Path dir;

  private static float[] flat(INDArray a) {
    return a.dup('c').reshape(a.length()).toFloatVector();
  }

  @Test
  void irisHas150ExamplesBalancedAndTheResourceValues() throws Exception {
    double[] want = new double[4];
    int rows = 0;
    try (BufferedReader r = new BufferedReader(new InputStreamReader(
        IrisDataSetIterator.class.getResourceAsStream("/org/ndrt/dl4j/datasets/iris.dat"), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        if (!line.isBlank()) {
          String[] p = line.split(",");
          for (int j = 0; j < 4; j++) {
            want[j] += Double.parseDouble(p[j]);
          }
          rows++;
        }
      }
    }
    assertEquals(150, rows);
    IrisDataSetIterator it = new IrisDataSetIterator(40, 150);
    assertEquals(4, it.inputColumns());
    assertEquals(3, it.totalOutcomes());
    int n = 0;
    int[] counts = new int[3];
    double[] sums = new double[4];
    while (it.hasNext()) {
      DataSet ds = it.next();
      assertEquals(DataType.FLOAT, ds.getFeatures().dataType());
      float[] f = flat(ds.getFeatures());
      float[] l = flat(ds.getLabels());
      int mb = (int) ds.getFeatures().size(0);
      for (int i = 0; i < mb; i++) {
        for (int j = 0; j < 4; j++) {
          sums[j] += f[i * 4 + j];
        }
        for (int c = 0; c < 3; c++) {
          counts[c] += (int) l[i * 3 + c];
        }
      }
      n += mb;
    }
    assertEquals(150, n);
    assertArrayEquals(new int[] {50, 50, 50}, counts);
    for (int j = 0; j < 4; j++) {
      assertEquals(want[j], sums[j], 1e-3, "feature " + j);
    }
    assertEquals(876.5, want[0], 1e-9); // the classic data: sepal lengths sum to 876.5 cm
    DataSet all = new IrisDataSetIterator().next();
    assertArrayEquals(new long[] {150, 4}, all.getFeatures().shape());
    assertArrayEquals(new float[] {5.1f, 3.5f, 1.4f, 0.2f}, flat(all.getFeatures().getRow(0)));
  }

  @Test
  void mnistMatchesTheIdxFiles() throws Exception {
    Path mnist = org.ndrt.data.MnistDataSetIterator.DEFAULT_DIR;
    assumeTrue(Files.isRegularFile(MnistNpm.file(mnist, MnistNpm.TEST_IMAGES)), "MNIST not in " + mnist);
    int[] dims = new int[3];
    byte[] px = IdxFile.readUnsignedBytes(MnistNpm.file(mnist, MnistNpm.TEST_IMAGES), dims);
    byte[] lab = IdxFile.readUnsignedBytes(MnistNpm.file(mnist, MnistNpm.TEST_LABELS), new int[1]);
    MnistDataSetIterator it = new MnistDataSetIterator(32, 100, false, false, false, 1);
    assertEquals(784, it.inputColumns());
    assertEquals(10, it.totalOutcomes());
    int seen = 0;
    while (it.hasNext()) {
      DataSet ds = it.next();
      assertEquals(DataType.FLOAT, ds.getFeatures().dataType());
      int mb = (int) ds.getFeatures().size(0);
      assertArrayEquals(new long[] {mb, 784}, ds.getFeatures().shape());
      assertArrayEquals(new long[] {mb, 10}, ds.getLabels().shape());
      float[] f = flat(ds.getFeatures());
      float[] l = flat(ds.getLabels());
      for (int i = 0; i < mb; i++) {
        int e = seen + i;
        for (int k = 0; k < 784; k++) {
          assertEquals((px[e * 784 + k] & 0xff) / 255f, f[i * 784 + k], 1e-7f);
        }
        for (int c = 0; c < 10; c++) {
          assertEquals(c == lab[e] ? 1f : 0f, l[i * 10 + c]);
        }
      }
      seen += mb;
    }
    assertEquals(100, seen);
    DataSet bin = new MnistDataSetIterator(10, 10, true).next();
    for (float v : flat(bin.getFeatures())) {
      assertTrue(v == 0f || v == 1f);
    }
    // shuffled: another order each epoch, every example once
    MnistDataSetIterator sh = new MnistDataSetIterator(10000, false, 7);
    float[] a = flat(sh.next().getLabels());
    sh.reset();
    float[] b = flat(sh.next().getLabels());
    assertFalse(java.util.Arrays.equals(a, b));
    float sa = 0;
    for (float v : a) {
      sa += v;
    }
    assertEquals(10000f, sa);
  }

  @Test
  void mnistMissingSaysHowToGetIt() {
    IOException e = assertThrows(IOException.class,
        () -> new MnistDataSetIterator(10, 10, false, true, false, 0, dir.toFile()));
    assertTrue(e.getMessage().contains("fetch-mnist.sh"), e.getMessage());
    assertTrue(e.getMessage().contains("train-images-idx3-ubyte"), e.getMessage());
  }

  @Test
  void cifarAndEmnistAbsentSayWhichFilesWhere() {
    String old = System.getProperty("org.deeplearning4j.resources.directory");
    System.setProperty("org.deeplearning4j.resources.directory", dir.toString());
    try {
      IllegalStateException c = assertThrows(IllegalStateException.class, () -> new Cifar10DataSetIterator(8, DataSetType.TEST));
      assertTrue(c.getMessage().contains(dir.resolve("data/cifar10/test").toString()), c.getMessage());
      assertTrue(c.getMessage().contains("/train/<class>/*.png"), c.getMessage());
      IOException e = assertThrows(IOException.class, () -> new EmnistDataSetIterator(EMnistSet.BALANCED, 8, true));
      assertTrue(e.getMessage().contains("emnist-balanced-train-images-idx3-ubyte.gz"), e.getMessage());
      assertTrue(e.getMessage().contains(dir.resolve("data/EMNIST").toString()), e.getMessage());
    } finally {
      if (old == null) {
        System.clearProperty("org.deeplearning4j.resources.directory");
      } else {
        System.setProperty("org.deeplearning4j.resources.directory", old);
      }
    }
    assertEquals(47, EmnistDataSetIterator.numLabels(EMnistSet.BALANCED));
    assertEquals(26, EmnistDataSetIterator.numLabels(EMnistSet.LETTERS));
  }

  @Test
  void emnistReadsFilesInDl4jLayout() throws Exception {
    byte[] px = new byte[3 * 28 * 28];
    px[0] = (byte) 255;
    px[784 + 1] = (byte) 51;
    IdxFile.writeUnsignedBytes(dir.resolve("emnist-letters-test-images-idx3-ubyte"), px, 3, 28, 28);
    IdxFile.writeUnsignedBytes(dir.resolve("emnist-letters-test-labels-idx1-ubyte"), new byte[] {1, 26, 3}, 3);
    EmnistDataSetIterator it = new EmnistDataSetIterator(EMnistSet.LETTERS, 3, false, false, false, 0, dir.toFile());
    DataSet ds = it.next();
    float[] f = flat(ds.getFeatures());
    assertEquals(1f, f[0]);
    assertEquals(0.2f, f[785], 1e-7f);
    float[] l = flat(ds.getLabels());
    assertEquals(1f, l[0]); // letter 1 (A) is class 0
    assertEquals(1f, l[26 + 25]);
    assertEquals(1f, l[52 + 2]);
    assertEquals("A", it.getLabels().get(0));
  }

  @Test
  void listIteratorMergesConsecutiveElements() {
    List<DataSet> list = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      list.add(new DataSet(Nd4j.create(new float[] {i, -i}, new long[] {1, 2}),
          Nd4j.create(new float[] {i % 2, 1 - i % 2}, new long[] {1, 2})));
    }
    ListDataSetIterator<DataSet> it = new ListDataSetIterator<>(list, 3);
    assertEquals(2, it.inputColumns());
    List<Integer> sizes = new ArrayList<>();
    float[] last = null;
    while (it.hasNext()) {
      DataSet ds = it.next();
      sizes.add(ds.numExamples());
      last = flat(ds.getFeatures());
    }
    assertEquals(List.of(3, 3, 1), sizes);
    assertArrayEquals(new float[] {6, -6}, last);
    it.reset();
    assertArrayEquals(new float[] {0, 0, 1, -1, 2, -2}, flat(it.next().getFeatures()));
    assertNotEquals(0, new ListDataSetIterator<>(list).batch());
  }
}
