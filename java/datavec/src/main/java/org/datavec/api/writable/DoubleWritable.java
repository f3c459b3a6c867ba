package org.datavec.api.writable;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/** A double value (DataVec's DoubleWritable); write() writes it as DataOutput.writeDouble does, as DataVec does. */
public class DoubleWritable implements Writable, Comparable<Object> {
  private static final long serialVersionUID = 1L;
  private double value;

  public DoubleWritable() {}

  public DoubleWritable(double value) {
    this.value = value;
  }

  public void set(double value) {
    this.value = value;
  }

  public double get() {
    return value;
  }

  @Override
  public void write(DataOutput out) throws IOException {
    out.writeDouble(value);
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    value = in.readDouble();
  }

  @Override
  public void writeType(DataOutput out) throws IOException {
    out.writeShort(WritableType.Double.typeIdx());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DoubleWritable && Double.compare(((DoubleWritable) o).value, value) == 0;
  }

  @Override
  public int hashCode() {
    return Double.hashCode(value);
  }

  @Override
  public int compareTo(Object o) {
    return Double.compare(value, ((DoubleWritable) o).value);
  }

  @Override
  public String toString() {
    return Double.toString(value);
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
    return (long) value;
  }

  @Override
  public WritableType getType() {
    return WritableType.Double;
  }
}
