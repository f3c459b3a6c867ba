package org.datavec.api.writable;

import java.io.DataInput;
import java.io.DataOutput;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * An array value (DataVec's NDArrayWritable): holds the INDArray itself, no copy. Like DataVec's, it
 * has no single numeric value (toDouble() and friends throw). Its binary form is ND4J's array
 * serialisation, which ndrt's ND4J drop-in does not write: write/readFields are refused.
 */
public class NDArrayWritable implements Writable, Comparable<Object> {
  private static final long serialVersionUID = 1L;
  public static final byte NDARRAY_SER_VERSION_HEADER_NULL = 0;
  public static final byte NDARRAY_SER_VERSION_HEADER = 1;
  private transient INDArray array;

  public NDArrayWritable() {}

  public NDArrayWritable(INDArray array) {
    this.array = array;
  }

  public void set(INDArray array) {
    this.array = array;
  }

  public INDArray get() {
    return array;
  }

  public long length() {
    return array == null ? 0 : array.length();
  }

  public double getDouble(long i) {
    return array.getDouble(i);
  }

  public float getFloat(long i) {
    return array.getFloat(i);
  }

  public int getInt(long i) {
    return array.getInt((int) i);
  }

  public long getLong(long i) {
    return array.getLong(i);
  }

  private static UnsupportedOperationException refused(String method) {
    return new UnsupportedOperationException("ndrt's DataVec drop-in does not implement NDArrayWritable." + method
        + ": ND4J's binary array format is not written by ndrt's ND4J drop-in");
  }

  @Override
  public void write(DataOutput out) {
    throw refused("write");
  }

  @Override
  public void readFields(DataInput in) {
    throw refused("readFields");
  }

  @Override
  public void writeType(DataOutput out) throws java.io.IOException {
    out.writeShort(WritableType.NDArray.typeIdx());
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof NDArrayWritable)) {
      return false;
    }
    INDArray other = ((NDArrayWritable) o).array;
    return array == null ? other == null : array.equals(other);
  }

  @Override
  public int hashCode() {
    return array == null ? 0 : java.util.Arrays.hashCode(array.shape());
  }

  /** Orders by length, then element by element, as DataVec does. */
  @Override
  public int compareTo(Object o) {
    INDArray other = ((NDArrayWritable) o).array;
    if (array.length() != other.length()) {
      return Long.compare(array.length(), other.length());
    }
    for (long i = 0; i < array.length(); i++) {
      int c = Double.compare(array.getDouble(i), other.getDouble(i));
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  @Override
  public String toString() {
    return String.valueOf(array);
  }

  private UnsupportedOperationException noNumber() {
    return new UnsupportedOperationException("an NDArrayWritable holds an array, not one number");
  }

  @Override
  public double toDouble() {
    throw noNumber();
  }

  @Override
  public float toFloat() {
    throw noNumber();
  }

  @Override
  public int toInt() {
    throw noNumber();
  }

  @Override
  public long toLong() {
    throw noNumber();
  }

  @Override
  public WritableType getType() {
    return WritableType.NDArray;
  }
}
