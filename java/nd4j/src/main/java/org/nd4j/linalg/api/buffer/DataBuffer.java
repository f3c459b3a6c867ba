package org.nd4j.linalg.api.buffer;

import java.io.Serializable;

/**
 * ND4J's storage of an array's elements. ndrt's implementation is {@code org.ndrt.nd4j.NdrtDataBuffer},
 * a rank-1 view of the storage; the pointer, workspace and serialisation methods of ND4J's interface
 * are not part of this drop-in.
 */
public interface DataBuffer extends Serializable, AutoCloseable {
  DataType dataType();

  long length();

  int getElementSize();

  double[] asDouble();

  float[] asFloat();

  int[] asInt();

  long[] asLong();

  byte[] asBytes();

  double getDouble(long i);

  float getFloat(long i);

  long getLong(long i);

  int getInt(long i);

  Number getNumber(long i);

  void put(long i, double v);

  void put(long i, float v);

  void put(long i, int v);

  void put(long i, long v);

  void put(long i, boolean v);

  void assign(Number value);

  DataBuffer dup();

  long offset();

  long originalOffset();

  long underlyingLength();

  long capacity();

  boolean closeable();

  @Override
  void close();

  boolean wasClosed();
}
