package org.nd4j.linalg.string;

import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.Locale;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.ndrt.DType;
import org.ndrt.Tensor;
import org.ndrt.nd4j.ArrayCore;

/**
 * Formats arrays as ND4J prints them: nested brackets, each number right-aligned in a field of 10
 * (4 decimals; scientific notation below 1e-4 and from 1e4; zero as "0"), rows separated by ",
 * \n" and an indent per depth, integers as integers, booleans as true/false. Past 1000 elements
 * (maxElements) each axis shows its first and last three entries around "...".
 *
 * <p>Values come in one bulk read of the array (or, when summarised, one read per element shown).
 */
public class NDArrayStrings {
  /** Arrays longer than this are summarised by default. */
  public static final long DEFAULT_MAX_PRINT_ELEMENTS = 1000;
  private static long maxPrintElements = DEFAULT_MAX_PRINT_ELEMENTS;

  private final long maxElements;
  private final int precision;
  private final String colSep = ",";
  private final DecimalFormat decimal;
  private final DecimalFormat scientific;
  private final double maxPlain;
  private final double minPlain;
  private final int padding;

  public NDArrayStrings() {
    this(maxPrintElements, false, 4);
  }

  public NDArrayStrings(int precision) {
    this(maxPrintElements, false, precision);
  }

  public NDArrayStrings(long maxElements, int precision) {
    this(maxElements, false, precision);
  }

  public NDArrayStrings(long maxElements) {
    this(maxElements, false, 4);
  }

  public NDArrayStrings(boolean forceSummarize) {
    this(maxPrintElements, forceSummarize, 4);
  }

  public NDArrayStrings(boolean forceSummarize, int precision) {
    this(maxPrintElements, forceSummarize, precision);
  }

  public NDArrayStrings(long maxElements, boolean forceSummarize, int precision) {
    this.maxElements = forceSummarize ? 0 : maxElements;
    this.precision = Math.abs(precision);
    String digits = precision < 0 ? "#".repeat(this.precision) : "0".repeat(this.precision);
    this.decimal = format(this.precision == 0 ? "0" : "0." + digits);
    String sci = "0." + "#".repeat(this.precision) + "E0";
    this.scientific = format(sci);
    this.padding = Math.max(7, sci.length() + 2);
    this.maxPlain = Math.pow(10, this.precision);
    this.minPlain = 1.0 / maxPlain;
  }

  private static DecimalFormat format(String pattern) {
    return new DecimalFormat(pattern, DecimalFormatSymbols.getInstance(Locale.US));
  }

  public static void setMaxPrintElements(long n) {
    maxPrintElements = n;
  }

  public static long getMaxPrintElements() {
    return maxPrintElements;
  }

  /** Reads one element by its index (a full index into the array). */
  private interface Values {
    String at(long[] idx);
  }

  public String format(INDArray arr) {
    return format(arr, true);
  }

  public String format(INDArray arr, boolean summarize) {
    if (arr.isEmpty()) {
      return "[]";
    }
    boolean sum = summarize && arr.length() > maxElements;
    Values v = sum ? elementwise(arr) : bulk(arr);
    long[] shape = arr.shape();
    StringBuilder b = new StringBuilder();
    append(b, v, shape, new long[shape.length], 0, 0, sum, true);
    return b.toString();
  }

  private String text(double x, boolean padded) {
    String s;
    if ((Math.abs(x) < minPlain && x != 0) || Math.abs(x) >= maxPlain) {
      s = scientific.format(x).replace('E', 'e');
    } else if (x == 0) {
      s = "0";
    } else {
      s = decimal.format(x);
    }
    return padded ? pad(s) : s;
  }

  private String pad(String s) {
    return s.length() >= padding ? s : " ".repeat(padding - s.length()) + s;
  }

  /** All values in one read, indexed in 'c' order. */
  private Values bulk(INDArray arr) {
    Tensor t = ArrayCore.tensorOf(arr);
    long[] shape = arr.shape();
    DType d = t.dtype();
    if (d.isFloatingPoint()) {
      double[] all = t.toDoubleArray();
      return idx -> text(all[(int) linear(idx, shape)], true);
    }
    long[] all = t.toLongArray();
    if (d == DType.BOOL) {
      return idx -> pad(all[(int) linear(idx, shape)] == 0 ? "false" : "true");
    }
    return idx -> pad(Long.toString(all[(int) linear(idx, shape)]));
  }

  /** One read per element shown (for summarised arrays). */
  private Values elementwise(INDArray arr) {
    if (arr.isR()) {
      return idx -> text(arr.getDouble(idx), true);
    }
    if (arr.isB()) {
      return idx -> pad(arr.getDouble(idx) == 0 ? "false" : "true");
    }
    return idx -> pad(Long.toString(arr.getLong(idx)));
  }

  private static long linear(long[] idx, long[] shape) {
    long l = 0;
    for (int i = 0; i < shape.length; ++i) {
      l = l * shape[i] + idx[i];
    }
    return l;
  }

  private static long product(long[] shape, int from) {
    long n = 1;
    for (int i = from; i < shape.length; ++i) {
      n *= shape[i];
    }
    return n;
  }

  /**
   * The sub-array at {@code idx[0..depth)} (rank shape.length - depth). {@code offset} is the indent
   * depth ND4J carries; {@code outer} is true for the array being printed itself.
   */
  private void append(StringBuilder b, Values v, long[] shape, long[] idx, int depth, int offset, boolean sum,
                      boolean outer) {
    int rank = shape.length - depth;
    long length = product(shape, depth);
    if (rank == 0 || length == 1) {
      int brackets = Math.min(rank, 8);
      java.util.Arrays.fill(idx, depth, shape.length, 0);
      b.append("[".repeat(brackets)).append(v.at(idx).trim()).append("]".repeat(brackets));
      return;
    }
    if (rank == 1) {
      vector(b, v, shape, idx, depth, sum);
      return;
    }
    if (rank == 2 && shape[depth] == 1) { // a row vector: its one row, bracketed when printed alone
      idx[depth] = 0;
      if (outer) {
        b.append('[');
      }
      vector(b, v, shape, idx, depth + 1, sum);
      if (outer) {
        b.append(']');
      }
      return;
    }
    int inner = offset + 1;
    b.append('[');
    long n = shape[depth];
    for (long i = 0; i < n; ++i) {
      if (sum && i > 2 && i < n - 3) {
        b.append(" ...").append(colSep).append(" \n").append("\n".repeat(rank - 2)).append(" ".repeat(inner));
        i = Math.max(i, n - 4);
        continue;
      }
      idx[depth] = i;
      boolean rowSlice = rank == 3 && shape[depth + 1] == 1 && shape[depth + 2] > 1;
      if (rowSlice) {
        b.append('[');
      }
      append(b, v, shape, idx, depth + 1, inner, sum, false);
      if (rowSlice) {
        b.append(']');
      }
      if (i != n - 1) {
        b.append(colSep).append(" \n").append("\n".repeat(rank - 2)).append(" ".repeat(inner));
      }
    }
    b.append(']');
  }

  private void vector(StringBuilder b, Values v, long[] shape, long[] idx, int depth, boolean sum) {
    long l = shape[shape.length - 1];
    int last = shape.length - 1;
    java.util.Arrays.fill(idx, depth, shape.length, 0);
    b.append('[');
    for (long i = 0; i < l; ++i) {
      if (sum && i > 2 && i < l - 3) {
        b.append("  ...");
        i = Math.max(i, l - 4);
      } else {
        idx[last] = i;
        b.append(v.at(idx));
      }
      if (i < l - 1 && (!sum || i <= 2 || i >= l - 3 || l == 6)) {
        b.append(colSep);
      }
    }
    b.append(']');
  }

  /** The precision (digits after the decimal point). */
  public int getPrecision() {
    return precision;
  }
}
