package org.ndrt.nd4j;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.cpu.nativecpu.NDArray;
import org.ndrt.Tensor;

/**
 * ndrt's own file format for DataSet.save / load (not ND4J's: ND4J's files do not load here, nor
 * these in ND4J). Big-endian header, then each array's elements as stored, bit for bit:
 *
 * <pre>
 *   "NDRTDS" (6 ASCII bytes), version (int, 1), byte order of the data (byte: 'L' or 'B')
 *   4 times (features, labels, features mask, labels mask):
 *     present (byte 0/1); if 1: dtype (UTF: ND4J's DataType name), rank (int), shape (rank longs),
 *     then the elements in C order, width(dtype) bytes each in the byte order above
 * </pre>
 *
 * Label and column names and example metadata are not stored (as ND4J's save).
 */
public final class DataSetFiles {
  private static final byte[] MAGIC = "NDRTDS".getBytes(StandardCharsets.US_ASCII);
  private static final int VERSION = 1;

  private DataSetFiles() {}

  /** Writes the four arrays (each may be null) to {@code out} (not closed). */
  public static void write(OutputStream out, INDArray[] arrays) throws IOException {
    DataOutputStream d = new DataOutputStream(out);
    d.write(MAGIC);
    d.writeInt(VERSION);
    d.writeByte(ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? 'L' : 'B');
    byte[] chunk = new byte[1 << 16];
    for (INDArray a : arrays) {
      d.writeByte(a == null ? 0 : 1);
      if (a == null) {
        continue;
      }
      d.writeUTF(a.dataType().name());
      long[] shape = a.shape();
      d.writeInt(shape.length);
      for (long s : shape) {
        d.writeLong(s);
      }
      try (Tensor c = ArrayCore.tensorOf(a).contiguous()) {
        ByteBuffer b = c.asByteBuffer();
        while (b.hasRemaining()) {
          int n = Math.min(chunk.length, b.remaining());
          b.get(chunk, 0, n);
          d.write(chunk, 0, n);
        }
      }
    }
    d.flush();
  }

  /** Reads what {@link #write} wrote: the four arrays (null where absent). */
  public static INDArray[] read(InputStream in) throws IOException {
    DataInputStream d = new DataInputStream(in);
    byte[] magic = new byte[MAGIC.length];
    d.readFully(magic);
    if (!Arrays.equals(magic, MAGIC)) {
      throw new IOException("not an ndrt DataSet file (ndrt reads the files its DataSet.save writes, not ND4J's)");
    }
    int version = d.readInt();
    if (version != VERSION) {
      throw new IOException("ndrt DataSet file version " + version + " (this ndrt reads version " + VERSION + ")");
    }
    int order = d.readByte();
    boolean swap = (order == 'L') != (ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN);
    INDArray[] out = new INDArray[4];
    for (int i = 0; i < 4; ++i) {
      if (d.readByte() == 0) {
        continue;
      }
      DataType t;
      try {
        t = DataType.valueOf(d.readUTF());
      } catch (IllegalArgumentException e) {
        throw new IOException("ndrt DataSet file: unknown dtype", e);
      }
      int rank = d.readInt();
      if (rank < 0 || rank > 32) {
        throw new IOException("ndrt DataSet file: rank " + rank);
      }
      long[] shape = new long[rank];
      for (int k = 0; k < rank; ++k) {
        shape[k] = d.readLong();
      }
      Tensor tensor = Tensor.empty(Dtypes.toNdrt(t), shape);
      try {
        ByteBuffer b = tensor.asByteBuffer();
        byte[] chunk = new byte[1 << 16];
        int width = t.width();
        while (b.hasRemaining()) {
          int n = Math.min(chunk.length, b.remaining());
          d.readFully(chunk, 0, n);
          if (swap) {
            reverseEach(chunk, n, width);
          }
          b.put(chunk, 0, n);
        }
      } catch (IOException | RuntimeException e) {
        tensor.close();
        throw e;
      }
      out[i] = new NDArray(tensor);
    }
    return out;
  }

  /** Reverses the bytes of each {@code width}-byte element (the chunk holds whole elements: 2^16 is a multiple). */
  private static void reverseEach(byte[] b, int n, int width) {
    for (int e = 0; e + width <= n; e += width) {
      for (int i = 0, j = width - 1; i < j; ++i, --j) {
        byte x = b[e + i];
        b[e + i] = b[e + j];
        b[e + j] = x;
      }
    }
  }
}
