package org.datavec.api.writable;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.io.Serializable;

/** One value of a record (DataVec's Writable): a number, a string or an array. */
public interface Writable extends Serializable {
  void write(DataOutput out) throws IOException;

  void readFields(DataInput in) throws IOException;

  void writeType(DataOutput out) throws IOException;

  double toDouble();

  float toFloat();

  int toInt();

  long toLong();

  WritableType getType();
}
