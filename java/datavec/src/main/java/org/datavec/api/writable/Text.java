package org.datavec.api.writable;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * A string value (DataVec's Text). Held as a String (DataVec keeps UTF-8 bytes; getBytes() encodes on
 * demand). As numbers, parsed as DataVec does (Double.parseDouble and friends). write() writes the
 * UTF-8 length as a Hadoop variable-length int and then the bytes, DataVec's (Hadoop's) format.
 */
public class Text implements Writable, Comparable<Object> {
  private static final long serialVersionUID = 1L;
  private String value;

  public Text() {
    this("");
  }

  public Text(String value) {
    this.value = value;
  }

  public Text(Text other) {
    this(other.toString());
  }

  public Text(byte[] utf8) {
    this(new String(utf8, StandardCharsets.UTF_8));
  }

  public byte[] getBytes() {
    return value.getBytes(StandardCharsets.UTF_8);
  }

  public int getLength() {
    return getBytes().length;
  }

  public void set(String value) {
    this.value = value;
  }

  public void set(Text other) {
    this.value = other.toString();
  }

  public void set(byte[] utf8) {
    this.value = new String(utf8, StandardCharsets.UTF_8);
  }

  public void clear() {
    value = "";
  }

  @Override
  public String toString() {
    return value;
  }

  @Override
  public void write(DataOutput out) throws IOException {
    byte[] b = getBytes();
    writeVInt(out, b.length);
    out.write(b);
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    byte[] b = new byte[readVInt(in)];
    in.readFully(b);
    set(b);
  }

  @Override
  public void writeType(DataOutput out) throws IOException {
    out.writeShort(WritableType.Text.typeIdx());
  }

  // Hadoop's zero-compressed encoding (WritableUtils.writeVLong): -112..127 in one byte, otherwise a
  // length byte then the big-endian magnitude (one's complement for negatives).
  private static void writeVInt(DataOutput out, long i) throws IOException {
    if (i >= -112 && i <= 127) {
      out.writeByte((byte) i);
      return;
    }
    int len = -112;
    if (i < 0) {
      i ^= -1L;
      len = -120;
    }
    for (long tmp = i; tmp != 0; tmp >>= 8) {
      len--;
    }
    out.writeByte((byte) len);
    len = (len < -120) ? -(len + 120) : -(len + 112);
    for (int idx = len; idx != 0; idx--) {
      int shift = (idx - 1) * 8;
      out.writeByte((byte) ((i & (0xFFL << shift)) >> shift));
    }
  }

  private static int readVInt(DataInput in) throws IOException {
    byte first = in.readByte();
    if (first >= -112) {
      return first;
    }
    boolean negative = first < -120;
    int len = negative ? -119 - first : -111 - first;
    long i = 0;
    for (int idx = 0; idx < len - 1; idx++) {
      i = (i << 8) | (in.readByte() & 0xFF);
    }
    return (int) (negative ? (i ^ -1L) : i);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Text && ((Text) o).toString().equals(value);
  }

  @Override
  public int hashCode() {
    return value.hashCode();
  }

  @Override
  public int compareTo(Object o) {
    return value.compareTo(o.toString());
  }

  @Override
  public double toDouble() {
    return Double.parseDouble(value);
  }

  @Override
  public float toFloat() {
    return Float.parseFloat(value);
  }

  @Override
  public int toInt() {
    return Integer.parseInt(value);
  }

  @Override
  public long toLong() {
    return Long.parseLong(value);
  }

  @Override
  public WritableType getType() {
    return WritableType.Text;
  }
}
