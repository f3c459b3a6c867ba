package org.datavec.api.writable;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/** A float value (DataVec's FloatWritable); write() writes it as DataOutput.writeFloat does, as DataVec does. */
public class FloatWritable implements Writable, Comparable<Object> {
  private static final long serialVersionUID = 1L;
  private float value;

  public FloatWritable() {}

  public FloatWritable(float value) {
    this.value = value;
  }

  public void set(float value) {
    this.value = value;
  }

  public float get() {
    return value;
  }

  @Override
  public void write(DataOutput out) throws IOException {
    out.writeFloat(value);
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    value = in.readFloat();
  }

  @Override
  public void writeType(DataOutput out) throws IOException {
    out.writeShort(WritableType.Float.typeIdx());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FloatWritable && Float.compare(((FloatWritable) o).value, value) == 0;
  }

  @Override
  public int hashCode() {
    return Float.hashCode(value);
  }

  @Override
  public int compareTo(Object o) {
    return Float.compare(value, ((FloatWritable) o).value);
  }

  @Override
  public String toString() {
    return Float.toString(value);
  }

  @Override
  public double toDouble() {
    return value;
  }

  @Override
  public float toFloat() {
    return value;
  }

  @Override
  public int toInt() {
    return (int) value;
  }

  @Override
  public long toLong() {
    return (long) value;
  }

  @Override
  public WritableType getType() {
    return WritableType.Float;
  }
}
