package org.ndrt.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MNIST iterator over a synthetic IDX set grouped by class (the hardest order for a split).
 * Every image carries its own index in its first two pixels, so each row of a batch can be traced
 * back to the file and compared with what the test wrote. Most tests split the file 80/20
 * ({@code trainFraction(0.8)}); without a fraction the whole file is the set.
 */
class MnistDataSetIteratorTest {
  private static final int PER_CLASS = 100;
  private static final int N = 10 * PER_CLASS;
  private static final int P = 784;

  @TempDir static Path dir;
  private static Path images;
  private static Path labels;

  /** Pixel {@code p} of image {@code i}: p0, p1 = the index (low, high byte), the rest a pattern. */
  private static int pixel(int i, int p) {
    if (p == 0) {
      return i & 0xff;
    }
    if (p == 1) {
      return i >>> 8;
    }
    return (i * 7 + p * 13) & 0xff;
  }

  private static int label(int i) {
    return i / PER_CLASS; // grouped by class, like the package
  }

  @BeforeAll
  static void writeData() throws IOException {
    byte[] px = new byte[N * P];
    byte[] lb = new byte[N];
    for (int i = 0; i < N; i++) {
      for (int p = 0; p < P; p++) {
        px[i * P + p] = (byte) pixel(i, p);
      }
      lb[i] = (byte) label(i);
    }
    images = dir.resolve("images-idx3-ubyte");
    labels = dir.resolve("labels-idx1-ubyte");
    IdxFile.writeUnsignedBytes(images, px, N, 28, 28);
    IdxFile.writeUnsignedBytes(labels, lb, N);
  }

  /** The synthetic files, split 80/20. */
  private static MnistDataSetIterator.Builder builder() {
    return MnistDataSetIterator.builder().images(images).labels(labels).trainFraction(0.8);
  }

  /**
   * One epoch: the example index of every row, in order, after checking every row against the
   * file: features = pixel / 255 (all 784), labels one-hot at the file's label; and the batch shapes.
   */
  private static List<Integer> epoch(DataSetIterator it) {
    List<Integer> ids = new ArrayList<>();
    while (it.hasNext()) {
      try (DataSet ds = it.next()) {
        int n = ds.numExamples();
        assertTrue(n >= 1 && n <= it.batchSize());
        assertArrayEquals(new long[] {n, P}, ds.features().shape());
        assertArrayEquals(new long[] {n, 10}, ds.labels().shape());
        float[] f = ds.features().toFloatArray();
        float[] l = ds.labels().toFloatArray();
        for (int r = 0; r < n; r++) {
          int id = Math.round(f[r * P] * 255) + 256 * Math.round(f[r * P + 1] * 255);
          assertTrue(id >= 0 && id < N, "row traces back to an image: " + id);
          for (int p = 0; p < P; p++) {
            assertEquals(pixel(id, p) / 255f, f[r * P + p], "image " + id + " pixel " + p);
          }
          for (int c = 0; c < 10; c++) {
            assertEquals(c == label(id) ? 1f : 0f, l[r * 10 + c], "one-hot label of image " + id);
          }
          ids.add(id);
        }
      }
    }
    assertThrows(NoSuchElementException.class, it::next);
    return ids;
  }

  private static int[] classCounts(List<Integer> ids) {
    int[] c = new int[10];
    for (int id : ids) {
      c[label(id)]++;
    }
    return c;
  }

  @Test
  void splitIsDisjointCompleteAndBalanced() throws IOException {
    try (MnistDataSetIterator train = builder().batchSize(64).train(true).seed(7).build();
        MnistDataSetIterator test = builder().batchSize(64).train(false).seed(7).build()) {
      assertEquals(800, train.numExamples());
      assertEquals(200, test.numExamples());
      assertEquals(10, train.totalOutcomes());
      assertEquals(P, train.featureSize());
      List<Integer> a = epoch(train);
      List<Integer> b = epoch(test);
      assertEquals(800, a.size());
      assertEquals(200, b.size());
      Set<Integer> all = new HashSet<>(a);
      assertEquals(800, all.size(), "each train example once per epoch");
      all.addAll(b);
      assertEquals(N, all.size(), "train and test are disjoint and together the whole file");
      // The file is grouped by class; the split must still give both parts every class, in
      // proportion (expected 80 and 20 per class; these bounds are many standard deviations wide).
      for (int c = 0; c < 10; c++) {
        int inTrain = classCounts(a)[c];
        int inTest = classCounts(b)[c];
        assertTrue(inTrain >= 60 && inTrain <= 95, "class " + c + " in train: " + inTrain);
        assertTrue(inTest >= 5 && inTest <= 40, "class " + c + " in test: " + inTest);
      }
    }
  }

  @Test
  void splitFollowsTheDocumentedSeededShuffle() throws IOException {
    // Documented: Fisher-Yates with new Random(seed) over all indices; the first 70% are train.
    int[] all = new int[N];
    for (int i = 0; i < N; i++) {
      all[i] = i;
    }
    Random rng = new Random(99);
    for (int i = N - 1; i > 0; i--) {
      int j = rng.nextInt(i + 1);
      int t = all[i];
      all[i] = all[j];
      all[j] = t;
    }
    try (MnistDataSetIterator train = builder().trainFraction(0.7).seed(99).shuffle(false).batchSize(100).build();
        MnistDataSetIterator test = builder().trainFraction(0.7).seed(99).train(false).batchSize(100).build()) {
      List<Integer> expectedTrain = new ArrayList<>();
      List<Integer> expectedTest = new ArrayList<>();
      for (int i = 0; i < N; i++) {
        (i < 700 ? expectedTrain : expectedTest).add(all[i]);
      }
      assertEquals(expectedTrain, epoch(train));
      assertEquals(expectedTest, epoch(test), "the test part is not reshuffled by default");
    }
  }

  @Test
  void batchesCoverEachExampleOnceWithAPartialLastBatch() throws IOException {
    try (MnistDataSetIterator it = builder().batchSize(96).seed(3).build()) {
      List<Integer> sizes = new ArrayList<>();
      Set<Integer> seen = new HashSet<>();
      while (it.hasNext()) {
        try (DataSet ds = it.next()) {
          sizes.add(ds.numExamples());
          float[] f = ds.features().toFloatArray();
          for (int r = 0; r < ds.numExamples(); r++) {
            assertTrue(seen.add(Math.round(f[r * P] * 255) + 256 * Math.round(f[r * P + 1] * 255)), "seen twice");
          }
        }
      }
      // 800 = 8 * 96 + 32
      assertEquals(List.of(96, 96, 96, 96, 96, 96, 96, 96, 32), sizes);
      assertEquals(800, seen.size());
      assertFalse(it.hasNext());
    }
  }

  @Test
  void reshuffledEachEpochDeterministicallyBySeed() throws IOException {
    try (MnistDataSetIterator a = builder().batchSize(50).seed(11).build();
        MnistDataSetIterator b = builder().batchSize(50).seed(11).build();
        MnistDataSetIterator c = builder().batchSize(50).seed(12).build()) {
      List<Integer> a0 = epoch(a);
      a.reset();
      List<Integer> a1 = epoch(a);
      a.reset();
      List<Integer> a2 = epoch(a);
      assertNotEquals(a0, a1, "epochs differ");
      assertNotEquals(a1, a2);
      assertEquals(new HashSet<>(a0), new HashSet<>(a1), "the same examples every epoch");

      List<Integer> b0 = epoch(b);
      b.reset();
      assertEquals(a0, b0, "same seed, same order");
      assertEquals(a1, epoch(b));
      assertNotEquals(new HashSet<>(a0), new HashSet<>(epoch(c)), "another seed, another split");
    }
  }

  @Test
  void shuffleOffKeepsTheOrder() throws IOException {
    try (MnistDataSetIterator it = builder().batchSize(128).shuffle(false).seed(5).build()) {
      List<Integer> e0 = epoch(it);
      it.reset();
      assertEquals(e0, epoch(it));
    }
    try (MnistDataSetIterator test = builder().train(false).shuffle(true).seed(5).build()) {
      List<Integer> e0 = epoch(test);
      test.reset();
      assertNotEquals(e0, epoch(test), "shuffle(true) also reshuffles the test part");
    }
  }

  @Test
  void numExamplesTakesTheFirstOfTheSplit() throws IOException {
    try (MnistDataSetIterator full = builder().shuffle(false).seed(8).batchSize(30).build();
        MnistDataSetIterator small = builder().shuffle(false).seed(8).batchSize(30).numExamples(70).build()) {
      assertEquals(70, small.numExamples());
      List<Integer> s = epoch(small);
      assertEquals(epoch(full).subList(0, 70), s);
    }
    try (MnistDataSetIterator more = builder().numExamples(5000).train(false).build()) {
      assertEquals(200, more.numExamples(), "capped at the part's size");
    }
  }

  @Test
  void otherIdxLayoutsWork() throws IOException {
    // gzip'ed images of 8x8, int32 labels: any IDX files with integer labels 0..9.
    int n = 40;
    byte[] px = new byte[n * 64];
    int[] lb = new int[n];
    for (int i = 0; i < n; i++) {
      px[i * 64] = (byte) i;
      px[i * 64 + 63] = (byte) 255;
      lb[i] = i % 10;
    }
    Path img = dir.resolve("small-images.gz");
    Path lab = dir.resolve("small-labels");
    IdxFile.writeUnsignedBytes(img, px, n, 8, 8);
    IdxFile.writeInts(lab, lb, n);
    try (MnistDataSetIterator it = MnistDataSetIterator.builder().images(img).labels(lab).batchSize(64).build()) {
      assertEquals(64, it.featureSize());
      try (DataSet ds = it.next()) {
        assertArrayEquals(new long[] {n, 64}, ds.features().shape());
        float[] f = ds.features().toFloatArray();
        float[] l = ds.labels().toFloatArray();
        for (int r = 0; r < n; r++) {
          int id = Math.round(f[r * 64] * 255);
          assertEquals(1f, f[r * 64 + 63]);
          assertEquals(1f, l[r * 10 + id % 10]);
        }
      }
      assertFalse(it.hasNext());
    }
  }

  @Test
  void dataDirReadsFilesUnderTheOfficialNamesWithoutNpm() throws IOException {
    // A folder holding the four files by hand (two of them gzip'ed): the default data's layout.
    Path cache = Files.createDirectories(dir.resolve("cache"));
    Files.copy(images, cache.resolve(MnistNpm.TRAIN_IMAGES));
    Files.copy(labels, cache.resolve(MnistNpm.TRAIN_LABELS));
    IdxFile.write(cache.resolve(MnistNpm.TEST_IMAGES + ".gz"), IdxFile.read(images));
    IdxFile.write(cache.resolve(MnistNpm.TEST_LABELS + ".gz"), IdxFile.read(labels));
    try (MnistDataSetIterator train = MnistDataSetIterator.builder().dataDir(cache).seed(7).build();
         MnistDataSetIterator same = MnistDataSetIterator.builder().images(images).labels(labels).seed(7).build();
         MnistDataSetIterator test = MnistDataSetIterator.builder().dataDir(cache).train(false).build()) {
      assertEquals(N, train.numExamples(), "the whole training file");
      assertEquals(epoch(same), epoch(train));
      List<Integer> inOrder = new ArrayList<>();
      for (int i = 0; i < N; i++) {
        inOrder.add(i);
      }
      assertEquals(inOrder, epoch(test), "the test file, in file order");
    }
  }

  @Test
  void ownFilesWithoutAFractionAreTheWholeSet() throws IOException {
    try (MnistDataSetIterator all = MnistDataSetIterator.builder().images(images).labels(labels).seed(4).build();
         MnistDataSetIterator ordered = MnistDataSetIterator.builder().images(images).labels(labels).train(false).build()) {
      List<Integer> a = epoch(all);
      assertEquals(N, a.size());
      assertEquals(N, new HashSet<>(a).size(), "every example once");
      List<Integer> o = epoch(ordered);
      for (int i = 0; i < N; i++) {
        assertEquals(i, o.get(i), "train(false): file order");
      }
    }
    // trainFraction is for one's own files: the default data has its own test set.
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> MnistDataSetIterator.builder().trainFraction(0.5).build());
    assertTrue(e.getMessage().contains("own test set"), e.getMessage());
  }

  @Test
  void binarizeAndTheMaxExamplesProperty() throws IOException {
    try (MnistDataSetIterator bin = builder().binarize(true).shuffle(false).batchSize(N).build();
         MnistDataSetIterator plain = builder().shuffle(false).batchSize(N).build();
         DataSet b = bin.next();
         DataSet p = plain.next()) {
      float[] fb = b.features().toFloatArray();
      float[] fp = p.features().toFloatArray();
      int ones = 0;
      for (int i = 0; i < fb.length; i++) {
        int px = Math.round(fp[i] * 255);
        assertEquals(px > 30 ? 1f : 0f, fb[i], "Deeplearning4j's threshold: above 30 of 255");
        ones += (int) fb[i];
      }
      assertTrue(ones > 0 && ones < fb.length);
    }
    String before = System.getProperty(MnistDataSetIterator.MAX_EXAMPLES_PROPERTY);
    try {
      System.setProperty(MnistDataSetIterator.MAX_EXAMPLES_PROPERTY, "37");
      try (MnistDataSetIterator capped = builder().shuffle(false).batchSize(10).build();
           MnistDataSetIterator full = MnistDataSetIterator.builder().images(images).labels(labels).trainFraction(0.8)
               .shuffle(false).batchSize(10).numExamples(800).build()) {
        assertEquals(37, capped.numExamples());
        assertEquals(37, full.numExamples(), "the property caps an explicit numExamples too");
        assertEquals(37, epoch(capped).size());
      }
      System.setProperty(MnistDataSetIterator.MAX_EXAMPLES_PROPERTY, "many");
      assertThrows(IllegalArgumentException.class, () -> builder().build());
    } finally {
      if (before == null) {
        System.clearProperty(MnistDataSetIterator.MAX_EXAMPLES_PROPERTY);
      } else {
        System.setProperty(MnistDataSetIterator.MAX_EXAMPLES_PROPERTY, before);
      }
    }
  }

  @Test
  void badInputIsRejected() throws IOException {
    assertThrows(IllegalArgumentException.class, () -> builder().batchSize(0).build());
    assertThrows(IllegalArgumentException.class, () -> builder().trainFraction(1.5).build());
    assertThrows(IllegalArgumentException.class, () -> builder().numExamples(-1));
    assertThrows(IllegalArgumentException.class, () -> MnistDataSetIterator.builder().images(images).build());

    Path fewLabels = dir.resolve("few-labels");
    IdxFile.writeUnsignedBytes(fewLabels, new byte[N - 1], N - 1);
    IOException count = assertThrows(IOException.class, () -> builder().labels(fewLabels).build());
    assertTrue(count.getMessage().contains("999 labels for 1000 images"), count.getMessage());

    Path badLabel = dir.resolve("bad-label");
    byte[] lb = new byte[N];
    lb[17] = 10;
    IdxFile.writeUnsignedBytes(badLabel, lb, N);
    IOException range = assertThrows(IOException.class, () -> builder().labels(badLabel).build());
    assertTrue(range.getMessage().contains("label 10 of example 17"), range.getMessage());

    Path floatImages = dir.resolve("float-images");
    IdxFile.writeFloats(floatImages, new float[N * 4], N, 2, 2);
    IOException type = assertThrows(IOException.class, () -> builder().images(floatImages).build());
    assertTrue(type.getMessage().contains("unsigned-byte"), type.getMessage());

    IOException missing = assertThrows(IOException.class, () -> builder().images(dir.resolve("nope")).build());
    assertTrue(missing.getMessage().contains("nope"), missing.getMessage());
  }

  @Test
  void examplesAreThePartInSplitOrder() throws IOException {
    try (MnistDataSetIterator it = builder().batchSize(64).train(false).seed(7).numExamples(150).build()) {
      ExampleSource ex = it.examples();
      assertEquals(150, ex.size());
      assertArrayEquals(new long[] {P}, ex.featureShape());
      assertEquals(10, ex.labelWidth());
      float[] f = new float[P];
      float[] l = new float[12];
      java.util.Arrays.fill(l, 7f); // the label row is overwritten whole, the rest left alone
      int k = 0;
      while (it.hasNext()) {
        try (DataSet ds = it.next()) {
          float[] rows = ds.features().toFloatArray();
          float[] labels = ds.labels().toFloatArray();
          for (int r = 0; r < ds.numExamples(); r++, k++) {
            ex.copy(k, f, 0, l, 1);
            assertArrayEquals(java.util.Arrays.copyOfRange(rows, r * P, (r + 1) * P), f, "example " + k);
            assertArrayEquals(java.util.Arrays.copyOfRange(labels, r * 10, (r + 1) * 10), java.util.Arrays.copyOfRange(l, 1, 11));
            assertEquals(7f, l[0]);
            assertEquals(7f, l[11]);
          }
        }
      }
      assertEquals(150, k);
    }
  }
}
