package org.datavec.api.writable;

/** The kinds of Writable, in DataVec's order: typeIdx() is the ordinal, as in DataVec's type headers. */
public enum WritableType {
  Boolean, Byte, Double, Float, Int, Long, Null, Text, NDArray, Image, Arrow, Bytes;

  /** Image and Arrow writables live in other DataVec modules; the rest are DataVec's core ones. */
  public boolean isCoreWritable() {
    return this != Image && this != Arrow;
  }

  public short typeIdx() {
    return (short) ordinal();
  }

  public Class<? extends Writable> getWritableClass() {
    switch (this) {
      case Boolean: return BooleanWritable.class;
      case Double: return DoubleWritable.class;
      case Float: return FloatWritable.class;
      case Int: return IntWritable.class;
      case Long: return LongWritable.class;
      case Null: return NullWritable.class;
      case Text: return Text.class;
      case NDArray: return NDArrayWritable.class;
      default:
        throw new UnsupportedOperationException("ndrt's DataVec drop-in does not implement WritableType.getWritableClass for "
            + this + ": it has no " + this + " writable");
    }
  }
}
