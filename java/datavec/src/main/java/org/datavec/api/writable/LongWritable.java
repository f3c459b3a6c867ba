package org.datavec.api.writable;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/** A long value (DataVec's LongWritable); write() writes it as DataOutput.writeLong does, as DataVec does. */
public class LongWritable implements Writable, Comparable<Object> {
  private static final long serialVersionUID = 1L;
  private long value;

  public LongWritable() {}

  public LongWritable(long value) {
    this.value = value;
  }

  public void set(long value) {
    this.value = value;
  }

  public long get() {
    return value;
  }

  @Override
  public void write(DataOutput out) throws IOException {
    out.writeLong(value);
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    value = in.readLong();
  }

  @Override
  public void writeType(DataOutput out) throws IOException {
    out.writeShort(WritableType.Long.typeIdx());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LongWritable && Long.compare(((LongWritable) o).value, value) == 0;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(value);
  }

  @Override
  public int compareTo(Object o) {
    return Long.compare(value, ((LongWritable) o).value);
  }

  @Override
  public String toString() {
    return Long.toString(value);
  }

  @Override
  public double toDouble() {
    return value;
  }

  @Override
  public float toFloat() {
    return (float) value;
  }

  @Override
  public int toInt() {
    return (int) value;
  }

  @Override
  public long toLong() {
    return value;
  }

  @Override
  public WritableType getType() {
    return WritableType.Long;
  }
}
