package org.ndrt.nd4j;

import java.nio.ByteBuffer;
import org.nd4j.linalg.api.buffer.DataBuffer;
import org.nd4j.linalg.api.buffer.DataType;
import org.ndrt.DType;
import org.ndrt.Tensor;

/**
 * ND4J's DataBuffer over a rank-1 tensor spanning an array's storage in memory order. Bulk reads
 * convert through the runtime (one cast and one copy); element access reads or writes one element.
 */
public final class NdrtDataBuffer implements DataBuffer {
  private static final long serialVersionUID = 1L;
  private final transient Tensor flat;

  NdrtDataBuffer(Tensor flat) {
    this.flat = flat;
  }

  /** The rank-1 tensor this buffer is. */
  public Tensor tensor() {
    return flat;
  }

  @Override
  public DataType dataType() {
    return Dtypes.fromNdrt(flat.dtype());
  }

  @Override
  public long length() {
    return flat.numel();
  }

  @Override
  public int getElementSize() {
    return flat.dtype().itemSize();
  }

  @Override
  public double[] asDouble() {
    return flat.toDoubleArray();
  }

  @Override
  public float[] asFloat() {
    return flat.toFloatArray();
  }

  @Override
  public int[] asInt() {
    return flat.toIntArray();
  }

  @Override
  public long[] asLong() {
    return flat.toLongArray();
  }

  /** The elements' bytes, big-endian (as ND4J's asBytes writes them). */
  @Override
  public byte[] asBytes() {
    DType d = flat.dtype();
    int n = Math.toIntExact(length());
    ByteBuffer b = ByteBuffer.allocate(n * d.itemSize());
    switch (d) {
      case F64: for (double v : flat.toDoubleArray()) { b.putDouble(v); } break;
      case F32: for (float v : flat.toFloatArray()) { b.putFloat(v); } break;
      case I64: for (long v : flat.toLongArray()) { b.putLong(v); } break;
      case I32: for (int v : flat.toIntArray()) { b.putInt(v); } break;
      case I8: case U8: case BOOL: b.put(flat.toByteArray()); break;
      default: throw new UnsupportedOperationException("ndrt's ND4J drop-in does not implement DataBuffer.asBytes for "
          + dataType());
    }
    return b.array();
  }

  private long[] at(long i) {
    if (i < 0 || i >= length()) {
      throw new IndexOutOfBoundsException("index " + i + " is outside a buffer of " + length() + " elements");
    }
    return new long[] {i};
  }

  @Override
  public double getDouble(long i) {
    return flat.getDouble(at(i));
  }

  @Override
  public float getFloat(long i) {
    return (float) getDouble(i);
  }

  @Override
  public long getLong(long i) {
    return (long) getDouble(i);
  }

  @Override
  public int getInt(long i) {
    return (int) getDouble(i);
  }

  @Override
  public Number getNumber(long i) {
    return flat.dtype().isFloatingPoint() ? (Number) getDouble(i) : (Number) getLong(i);
  }

  @Override
  public void put(long i, double v) {
    flat.putScalar(at(i), v);
  }

  @Override
  public void put(long i, float v) {
    put(i, (double) v);
  }

  @Override
  public void put(long i, int v) {
    put(i, (double) v);
  }

  @Override
  public void put(long i, long v) {
    put(i, (double) v);
  }

  @Override
  public void put(long i, boolean v) {
    put(i, v ? 1.0 : 0.0);
  }

  @Override
  public void assign(Number value) {
    flat.fill(value.doubleValue());
  }

  @Override
  public DataBuffer dup() {
    return new NdrtDataBuffer(org.ndrt.Ops.copy(flat));
  }

  @Override
  public long offset() {
    return 0;
  }

  @Override
  public long originalOffset() {
    return 0;
  }

  @Override
  public long underlyingLength() {
    return length();
  }

  @Override
  public long capacity() {
    return length();
  }

  @Override
  public boolean closeable() {
    return true;
  }

  @Override
  public void close() {
    flat.close();
  }

  @Override
  public boolean wasClosed() {
    return flat.isClosed();
  }

  @Override
  public String toString() {
    return java.util.Arrays.toString(asDouble());
  }
}
