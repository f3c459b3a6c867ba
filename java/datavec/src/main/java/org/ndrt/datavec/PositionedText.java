package org.ndrt.datavec;

import org.datavec.api.writable.Text;

/**
 * A Text read from a file, knowing where: file, line and column (1-based) of the value's first
 * character. It equals and hashes as a plain Text; only its number conversions differ, in naming the
 * place when the value is not a number.
 */
public final class PositionedText extends Text {
  private static final long serialVersionUID = 1L;
  private final String file;
  private final int line;
  private final int column;

  public PositionedText(String value, String file, int line, int column) {
    super(value);
    this.file = file;
    this.line = line;
    this.column = column;
  }

  public String where() {
    return file + ":" + line + ":" + column;
  }

  public int line() {
    return line;
  }

  public int column() {
    return column;
  }

  private NumberFormatException notA(String kind) {
    return new NumberFormatException(where() + ": \"" + this + "\" is not " + kind);
  }

  @Override
  public double toDouble() {
    try {
      return super.toDouble();
    } catch (NumberFormatException e) {
      throw notA("a number");
    }
  }

  @Override
  public float toFloat() {
    try {
      return super.toFloat();
    } catch (NumberFormatException e) {
      throw notA("a number");
    }
  }

  @Override
  public int toInt() {
    try {
      return super.toInt();
    } catch (NumberFormatException e) {
      throw notA("an integer (int)");
    }
  }

  @Override
  public long toLong() {
    try {
      return super.toLong();
    } catch (NumberFormatException e) {
      throw notA("an integer (long)");
    }
  }
}
