package org.ndrt.data;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * Reads and writes IDX files, the format of the MNIST distribution: a 4-byte magic
 * {@code 00 00 <type> <rank>}, {@code rank} big-endian int32 dimensions, then the elements in
 * row-major order, big-endian. Gzip'ed files ({@code 1f 8b}, e.g. the original {@code *.gz} MNIST
 * files) are read transparently; a path ending in {@code .gz} is written gzip'ed.
 *
 * <pre>{@code
 * IdxFile.Array images = IdxFile.read(Path.of("train-images-idx3-ubyte.gz"));
 * int[] dims = images.dims();      // [60000, 28, 28]
 * byte[] pixels = images.bytes();  // unsigned: pixels[i] & 0xff
 * }</pre>
 */
public final class IdxFile {
  /** Type code: unsigned byte (MNIST images and labels). */
  public static final int UBYTE = 0x08;
  /** Type code: signed byte. */
  public static final int BYTE = 0x09;
  /** Type code: big-endian int16. */
  public static final int SHORT = 0x0B;
  /** Type code: big-endian int32. */
  public static final int INT = 0x0C;
  /** Type code: big-endian float32. */
  public static final int FLOAT = 0x0D;
  /** Type code: big-endian float64. */
  public static final int DOUBLE = 0x0E;

  private IdxFile() {}

  /** Bytes per element of a type code; IllegalArgumentException for an unknown code. */
  public static int elementSize(int type) {
    switch (type) {
      case UBYTE:
      case BYTE:
        return 1;
      case SHORT:
        return 2;
      case INT:
      case FLOAT:
        return 4;
      case DOUBLE:
        return 8;
      default:
        throw new IllegalArgumentException(String.format("IDX: unknown type code 0x%02X", type));
    }
  }

  /**
   * The contents of an IDX file: its type code, its dimensions and the raw element bytes (big-endian,
   * as in the file). Read elements with {@link #bytes()} (byte types), {@link #getDouble(int)},
   * {@link #toIntArray()} or {@link #toFloatArray()}.
   */
  public static final class Array {
    private final int type;
    private final int[] dims;
    private final byte[] data;
    private final ByteBuffer view; // big-endian absolute reads over data

    /** Wraps raw big-endian element bytes; the length must be the dims' product times the element size. */
    public Array(int type, int[] dims, byte[] data) {
      int size = elementSize(type);
      long n = count(checkDims(dims));
      if (data == null || data.length != n * size) {
        throw new IllegalArgumentException("IDX: " + n + " elements of " + size + " bytes for dims "
            + Arrays.toString(dims) + " but " + (data == null ? "no" : data.length + " bytes of") + " data");
      }
      this.type = type;
      this.dims = dims.clone();
      this.data = data;
      this.view = ByteBuffer.wrap(data).order(ByteOrder.BIG_ENDIAN);
    }

    /** The type code ({@link #UBYTE}, ...). */
    public int type() {
      return type;
    }

    /** The dimensions (a copy). */
    public int[] dims() {
      return dims.clone();
    }

    /** Number of elements (the product of the dimensions). */
    public int size() {
      return (int) count(dims);
    }

    /** The element bytes themselves (not a copy) for {@link #UBYTE} and {@link #BYTE} files. */
    public byte[] bytes() {
      if (type != UBYTE && type != BYTE) {
        throw new IllegalStateException(String.format("IDX: bytes() needs a byte file, this one has type 0x%02X", type));
      }
      return data;
    }

    /** Element {@code i} (row-major) as a double: exact for every IDX type. */
    public double getDouble(int i) {
      ByteBuffer b = view;
      switch (type) {
        case UBYTE:
          return data[i] & 0xff;
        case BYTE:
          return data[i];
        case SHORT:
          return b.getShort(2 * i);
        case INT:
          return b.getInt(4 * i);
        case FLOAT:
          return b.getFloat(4 * i);
        default:
          return b.getDouble(8 * i);
      }
    }

    /** Every element as a double. */
    public double[] toDoubleArray() {
      double[] out = new double[size()];
      for (int i = 0; i < out.length; i++) {
        out[i] = getDouble(i);
      }
      return out;
    }

    /** Every element as a float (doubles are rounded; ints beyond 2^24 lose precision). */
    public float[] toFloatArray() {
      float[] out = new float[size()];
      for (int i = 0; i < out.length; i++) {
        out[i] = (float) getDouble(i);
      }
      return out;
    }

    /** Every element as an int: integer types only (labels). */
    public int[] toIntArray() {
      if (type == FLOAT || type == DOUBLE) {
        throw new IllegalStateException(String.format("IDX: toIntArray() needs an integer file, this one has type 0x%02X", type));
      }
      int[] out = new int[size()];
      for (int i = 0; i < out.length; i++) {
        out[i] = (int) getDouble(i);
      }
      return out;
    }
  }

  // ------------------------------------------------------------------------------- reading

  /**
   * Reads an IDX file, gzip'ed or not. IOException (naming the file) for a bad magic, an unknown
   * type, truncated data, or data beyond what the dimensions say.
   */
  public static Array read(Path path) throws IOException {
    try (InputStream in = Files.newInputStream(path)) {
      return read(in, path.toString());
    }
  }

  /** Reads an IDX stream (gzip'ed or not); {@code name} is for error messages. Does not close it. */
  public static Array read(InputStream stream, String name) throws IOException {
    BufferedInputStream buffered = new BufferedInputStream(stream, 1 << 16);
    buffered.mark(2);
    int b0 = buffered.read();
    int b1 = buffered.read();
    buffered.reset();
    boolean gz = b0 == 0x1f && b1 == 0x8b;
    try {
      InputStream in = gz ? new BufferedInputStream(new GZIPInputStream(buffered, 1 << 16), 1 << 16) : buffered;
      return readRaw(in, name);
    } catch (IOException e) {
      if (e.getMessage() != null && e.getMessage().startsWith(name + ": ")) {
        throw e; // ours, already says what is wrong
      }
      // The gzip layer's own errors ("Unexpected end of ZLIB input stream") name no file.
      throw new IOException(name + ": " + (gz ? "corrupt or truncated gzip data (" + e.getMessage() + ")" : e.getMessage()), e);
    }
  }

  /**
   * Reads an unsigned-byte IDX file (MNIST images or labels): its elements, with its dimensions
   * copied into {@code dimsOut} when that is not null (its length must be the file's rank).
   */
  public static byte[] readUnsignedBytes(Path path, int[] dimsOut) throws IOException {
    Array a = read(path);
    if (a.type() != UBYTE) {
      throw new IOException(String.format("%s: expected an unsigned-byte IDX file (type 0x08), found type 0x%02X", path, a.type()));
    }
    if (dimsOut != null) {
      if (dimsOut.length != a.dims.length) {
        throw new IOException(path + ": rank " + a.dims.length + " (dims " + Arrays.toString(a.dims)
            + "), expected rank " + dimsOut.length);
      }
      System.arraycopy(a.dims, 0, dimsOut, 0, dimsOut.length);
    }
    return a.bytes();
  }

  private static Array readRaw(InputStream in, String name) throws IOException {
    byte[] magic = in.readNBytes(4);
    if (magic.length < 4) {
      throw new IOException(name + ": not an IDX file (" + magic.length + " bytes, shorter than the 4-byte magic)");
    }
    if (magic[0] != 0 || magic[1] != 0) {
      throw new IOException(String.format("%s: not an IDX file (magic %02X %02X %02X %02X, expected 00 00 <type> <rank>)",
          name, magic[0], magic[1], magic[2], magic[3]));
    }
    int type = magic[2] & 0xff;
    int rank = magic[3] & 0xff;
    int size;
    try {
      size = elementSize(type);
    } catch (IllegalArgumentException e) {
      throw new IOException(String.format("%s: unknown IDX type code 0x%02X (expected 08, 09, 0B, 0C, 0D or 0E)", name, type), e);
    }
    byte[] header = in.readNBytes(4 * rank);
    if (header.length < 4 * rank) {
      throw new IOException(name + ": truncated IDX header (rank " + rank + " needs " + 4 * rank
          + " bytes of dimensions, found " + header.length + ")");
    }
    ByteBuffer hb = ByteBuffer.wrap(header).order(ByteOrder.BIG_ENDIAN);
    int[] dims = new int[rank];
    long count = 1;
    for (int i = 0; i < rank; i++) {
      dims[i] = hb.getInt();
      if (dims[i] < 0) {
        throw new IOException(name + ": IDX dimension " + i + " is " + Integer.toUnsignedString(dims[i]) + " (too large)");
      }
      count *= dims[i];
      if (count * size > Integer.MAX_VALUE - 8) {
        throw new IOException(name + ": IDX dims " + Arrays.toString(Arrays.copyOf(dims, i + 1))
            + " describe more than 2 GiB of data (not supported)");
      }
    }
    int expected = (int) (count * size);
    // readNBytes grows its buffer as data arrives, so lying dims in a short file cost no big allocation.
    byte[] data = in.readNBytes(expected);
    if (data.length < expected) {
      throw new IOException(name + ": truncated IDX data: dims " + Arrays.toString(dims) + " need " + expected
          + " bytes, the file has " + data.length);
    }
    if (in.read() != -1) {
      long extra = 1 + in.transferTo(OutputStream.nullOutputStream());
      throw new IOException(name + ": " + extra + " bytes after the IDX data (dims " + Arrays.toString(dims)
          + " need " + expected + "): the dims do not match the file size");
    }
    return new Array(type, dims, data);
  }

  // ------------------------------------------------------------------------------- writing

  /** Writes an IDX file (gzip'ed when the name ends in {@code .gz}). */
  public static void write(Path path, Array array) throws IOException {
    OutputStream out = Files.newOutputStream(path);
    boolean ok = false;
    try {
      if (path.getFileName() != null && path.getFileName().toString().endsWith(".gz")) {
        out = new GZIPOutputStream(out, 1 << 16);
      }
      try (DataOutputStream d = new DataOutputStream(new BufferedOutputStream(out, 1 << 16))) {
        d.writeByte(0);
        d.writeByte(0);
        d.writeByte(array.type);
        d.writeByte(array.dims.length);
        for (int dim : array.dims) {
          d.writeInt(dim);
        }
        d.write(array.data);
      }
      ok = true;
    } finally {
      if (!ok) {
        out.close();
        Files.deleteIfExists(path);
      }
    }
  }

  /** Writes unsigned bytes (type 0x08) with the given dimensions (their product must be the length). */
  public static void writeUnsignedBytes(Path path, byte[] data, int... dims) throws IOException {
    write(path, new Array(UBYTE, checkDims(dims), data.clone()));
  }

  /** Writes float32 values (type 0x0D). */
  public static void writeFloats(Path path, float[] data, int... dims) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(4 * data.length).order(ByteOrder.BIG_ENDIAN);
    b.asFloatBuffer().put(data);
    write(path, new Array(FLOAT, checkDims(dims), b.array()));
  }

  /** Writes int32 values (type 0x0C). */
  public static void writeInts(Path path, int[] data, int... dims) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(4 * data.length).order(ByteOrder.BIG_ENDIAN);
    b.asIntBuffer().put(data);
    write(path, new Array(INT, checkDims(dims), b.array()));
  }

  /** Writes float64 values (type 0x0E). */
  public static void writeDoubles(Path path, double[] data, int... dims) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(8 * data.length).order(ByteOrder.BIG_ENDIAN);
    b.asDoubleBuffer().put(data);
    write(path, new Array(DOUBLE, checkDims(dims), b.array()));
  }

  private static int[] checkDims(int[] dims) {
    if (dims == null || dims.length > 255) {
      throw new IllegalArgumentException("IDX: rank must be 0..255, got " + (dims == null ? "null" : dims.length));
    }
    return dims;
  }

  private static long count(int[] dims) {
    long n = 1;
    for (int d : dims) {
      if (d < 0) {
        throw new IllegalArgumentException("IDX: negative dimension in " + Arrays.toString(dims));
      }
      n *= d;
      if (n > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("IDX: dims " + Arrays.toString(dims) + " have more than 2^31 elements");
      }
    }
    return n;
  }
}
