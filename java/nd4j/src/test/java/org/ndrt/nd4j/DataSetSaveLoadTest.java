package org.ndrt.nd4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.ExistingMiniBatchDataSetIterator;
import org.nd4j.linalg.factory.Nd4j;
import org.ndrt.Tensor;

/** DataSet.save / load (ndrt's own format, DataSetFiles): features, labels and masks come back bit for bit. */
class DataSetSaveLoadTest {
  private static byte[] bytes(INDArray a) {
    try (Tensor c = ArrayCore.tensorOf(a).contiguous()) {
      ByteBuffer b = c.asByteBuffer();
      byte[] out = new byte[b.remaining()];
      b.get(out);
      return out;
    }
  }

  private static void assertSameBits(INDArray want, INDArray got, String what) {
    if (want == null) {
      assertNull(got, what);
      return;
    }
    assertEquals(want.dataType(), got.dataType(), what + " dtype");
    assertArrayEquals(want.shape(), got.shape(), what + " shape");
    assertArrayEquals(bytes(want), bytes(got), what + " bits");
  }

  /** Random floats with the awkward values mixed in: NaN, -0, subnormal, infinities, extremes. */
  private static INDArray awkwardFloats(long seed, long... shape) {
    Random r = new Random(seed);
    int n = 1;
    for (long s : shape) {
      n *= (int) s;
    }
    float[] v = new float[n];
    float[] special = {Float.NaN, -0f, Float.MIN_VALUE, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.MAX_VALUE};
    for (int i = 0; i < n; ++i) {
      v[i] = i < special.length ? special[i] : (float) r.nextGaussian() * 100;
    }
    return Nd4j.create(v, shape, 'c');
  }

  private static DataSet roundTrip(DataSet ds) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ds.save(out);
    DataSet back = new DataSet();
    back.load(new ByteArrayInputStream(out.toByteArray()));
    return back;
  }

  @Test
  void arraysAndMasksComeBackBitForBit() {
    Random r = new Random(3);
    double[] lab = new double[4 * 3 * 5];
    for (int i = 0; i < lab.length; ++i) {
      lab[i] = r.nextDouble() - 0.5;
    }
    INDArray labels = Nd4j.create(lab, new long[] {4, 3, 5}, 'c');
    INDArray fm = Nd4j.create(new float[] {1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0}, new long[] {4, 5}, 'c');
    INDArray lm = fm.castTo(DataType.DOUBLE);
    // A transposed view: saved in C order as its values read, not its memory.
    INDArray features = awkwardFloats(5, 4, 5, 2).permute(0, 2, 1);
    DataSet ds = new DataSet(features, labels, fm, lm);
    DataSet back = roundTrip(ds);
    assertSameBits(features, back.getFeatures(), "features");
    assertSameBits(labels, back.getLabels(), "labels");
    assertSameBits(fm, back.getFeaturesMaskArray(), "features mask");
    assertSameBits(lm, back.getLabelsMaskArray(), "labels mask");
    assertTrue(Float.isNaN(back.getFeatures().getFloat(0, 0, 0)), "NaN survives");

    INDArray ints = Nd4j.createFromArray(new int[][] {{1, -2}, {Integer.MAX_VALUE, Integer.MIN_VALUE}});
    DataSet noMasks = roundTrip(new DataSet(ints, Nd4j.createFromArray(7L, -8L).reshape(2, 1)));
    assertSameBits(ints, noMasks.getFeatures(), "int features");
    assertSameBits(Nd4j.createFromArray(7L, -8L).reshape(2, 1), noMasks.getLabels(), "long labels");
    assertNull(noMasks.getFeaturesMaskArray());
    assertNull(noMasks.getLabelsMaskArray());
  }

  @Test
  void filesFeedExistingMiniBatchDataSetIterator(@TempDir Path dir) {
    DataSet[] batches = new DataSet[3];
    for (int i = 0; i < batches.length; ++i) {
      batches[i] = new DataSet(awkwardFloats(10 + i, 2 + i, 6), awkwardFloats(20 + i, 2 + i, 3));
      batches[i].save(new File(dir.toFile(), "mnist-train-" + i + ".bin"));
    }
    ExistingMiniBatchDataSetIterator it = new ExistingMiniBatchDataSetIterator(dir.toFile(), "mnist-train-%d.bin");
    for (int pass = 0; pass < 2; ++pass) {
      int k = 0;
      while (it.hasNext()) {
        DataSet got = it.next();
        assertSameBits(batches[k].getFeatures(), got.getFeatures(), "batch " + k + " features");
        assertSameBits(batches[k].getLabels(), got.getLabels(), "batch " + k + " labels");
        ++k;
      }
      assertEquals(3, k);
      it.reset();
    }
  }

  @Test
  void otherFilesAreRefused(@TempDir Path dir) throws Exception {
    File f = dir.resolve("nd4j.bin").toFile();
    Files.write(f.toPath(), new byte[] {0, 0, 0, 1, 2, 3, 4, 5, 6, 7});
    UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> new DataSet().load(f));
    assertTrue(e.getCause().getMessage().contains("not an ndrt DataSet file"), e.getCause().getMessage());
    assertThrows(UncheckedIOException.class, () -> new DataSet().load(dir.resolve("missing.bin").toFile()));
  }
}
