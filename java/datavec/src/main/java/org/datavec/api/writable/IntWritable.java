package org.datavec.api.writable;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/** A int value (DataVec's IntWritable); write() writes it as DataOutput.writeInt does, as DataVec does. */
public class IntWritable implements Writable, Comparable<Object> {
  private static final long serialVersionUID = 1L;
  private int value;

  public IntWritable() {}

  public IntWritable(int value) {
    this.value = value;
  }

  public void set(int value) {
    this.value = value;
  }

  public int get() {
    return value;
  }

  @Override
  public void write(DataOutput out) throws IOException {
    out.writeInt(value);
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    value = in.readInt();
  }

  @Override
  public void writeType(DataOutput out) throws IOException {
    out.writeShort(WritableType.Int.typeIdx());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof IntWritable && Integer.compare(((IntWritable) o).value, value) == 0;
  }

  @Override
  public int hashCode() {
    return Integer.hashCode(value);
  }

  @Override
  public int compareTo(Object o) {
    return Integer.compare(value, ((IntWritable) o).value);
  }

  @Override
  public String toString() {
    return Integer.toString(value);
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
    return value;
  }

  @Override
  public long toLong() {
    return (long) value;
  }

  @Override
  public WritableType getType() {
    return WritableType.Int;
  }
}
