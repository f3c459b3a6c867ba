package org.datavec.api.writable;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/** A boolean value (DataVec's BooleanWritable): 1 or 0 as a number. */
public class BooleanWritable implements Writable, Comparable<Object> {
  private static final long serialVersionUID = 1L;
  private boolean value;

  public BooleanWritable() {}

  public BooleanWritable(boolean value) {
    this.value = value;
  }

  public void set(boolean value) {
    this.value = value;
  }

  public boolean get() {
    return value;
  }

  @Override
  public void write(DataOutput out) throws IOException {
    out.writeBoolean(value);
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    value = in.readBoolean();
  }

  @Override
  public void writeType(DataOutput out) throws IOException {
    out.writeShort(WritableType.Boolean.typeIdx());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BooleanWritable && ((BooleanWritable) o).value == value;
  }

  @Override
  public int hashCode() {
    return Boolean.hashCode(value);
  }

  @Override
  public int compareTo(Object o) {
    return Boolean.compare(value, ((BooleanWritable) o).value);
  }

  @Override
  public String toString() {
    return Boolean.toString(value);
  }

  @Override
  public double toDouble() {
    return value ? 1 : 0;
  }

  @Override
  public float toFloat() {
    return value ? 1 : 0;
  }

  @Override
  public int toInt() {
    return value ? 1 : 0;
  }

  @Override
  public long toLong() {
    return value ? 1 : 0;
  }

  @Override
  public WritableType getType() {
    return WritableType.Boolean;
  }
}
