package org.datavec.api.writable;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/** A missing value (DataVec's NullWritable): one shared instance, no number. */
public class NullWritable implements Writable, Comparable<Object> {
  private static final long serialVersionUID = 1L;
  public static final NullWritable INSTANCE = new NullWritable();

  private NullWritable() {}

  public static NullWritable get() {
    return INSTANCE;
  }

  @Override
  public void write(DataOutput out) {}

  @Override
  public void readFields(DataInput in) {}

  @Override
  public void writeType(DataOutput out) throws IOException {
    out.writeShort(WritableType.Null.typeIdx());
  }

  @Override
  public int compareTo(Object o) {
    return o instanceof NullWritable ? 0 : -1;
  }

  @Override
  public String toString() {
    return "(null)";
  }

  private UnsupportedOperationException noNumber() {
    return new UnsupportedOperationException("a NullWritable has no numeric value");
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
    return WritableType.Null;
  }
}
