package org.ndrt.nd4j;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.INDArrayIndex;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.ndrt.Ops;
import org.ndrt.Tensor;

/** Example-axis (dimension 0) helpers shared by DataSet, MultiDataSet and the normalizers. */
public final class DataSets {
  private DataSets() {}

  /** Rows [from, to) of {@code a} (a view), or null for null. */
  public static INDArray rows(INDArray a, long from, long to) {
    if (a == null) {
      return null;
    }
    INDArrayIndex[] idx = new INDArrayIndex[a.rank()];
    idx[0] = NDArrayIndex.interval(from, to);
    for (int i = 1; i < idx.length; i++) {
      idx[i] = NDArrayIndex.all();
    }
    return a.get(idx);
  }

  /** A random permutation of 0..n-1 drawn from {@code seed} (Fisher-Yates over java.util.Random). */
  public static long[] permutation(int n, long seed) {
    Random r = new Random(seed);
    long[] p = new long[n];
    for (int i = 0; i < n; i++) {
      p[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
      int j = r.nextInt(i + 1);
      long t = p[i];
      p[i] = p[j];
      p[j] = t;
    }
    return p;
  }

  /** Reorders the examples of {@code a} in place: row i becomes old row perm[i] (one gather op). */
  public static void permuteRows(INDArray a, long[] perm) {
    if (a == null) {
      return;
    }
    Tensor t = ArrayCore.tensorOf(a);
    try (Tensor idx = Tensor.from(perm, perm.length); Tensor g = Ops.gather(t, idx, 0)) {
      Ops.copy(g, t);
    }
  }

  /**
   * The arrays stacked along the examples. Trailing shapes must agree (ND4J pads time series of
   * different lengths with masks: not here yet).
   */
  public static INDArray stack(List<INDArray> arrays, String what) {
    if (arrays.isEmpty()) {
      return null;
    }
    long[] first = arrays.get(0).shape();
    for (INDArray a : arrays) {
      long[] s = a.shape();
      if (s.length != first.length || !Arrays.equals(Arrays.copyOfRange(s, 1, s.length),
          Arrays.copyOfRange(first, 1, first.length))) {
        throw new UnsupportedOperationException("merge of " + what + " of shapes " + Arrays.toString(first) + " and "
            + Arrays.toString(s) + ": padding to a common length is not in ndrt yet");
      }
    }
    return arrays.size() == 1 ? arrays.get(0).dup() : Nd4j.concat(0, arrays.toArray(new INDArray[0]));
  }

  /**
   * The masks stacked along the examples; null if none has one. Where some arrays have masks and
   * others not, the missing ones are all ones shaped as the others'.
   */
  public static INDArray stackMasks(List<INDArray> masks, List<INDArray> arrays, String what) {
    INDArray model = null;
    for (INDArray m : masks) {
      if (m != null) {
        model = m;
        break;
      }
    }
    if (model == null) {
      return null;
    }
    List<INDArray> full = new ArrayList<>(masks.size());
    for (int i = 0; i < masks.size(); i++) {
      INDArray m = masks.get(i);
      if (m == null) {
        long[] s = model.shape().clone();
        s[0] = arrays.get(i).size(0);
        m = Nd4j.ones(model.dataType(), s);
      }
      full.add(m);
    }
    return stack(full, what + " masks");
  }

  /**
   * [rows, F] of {@code data} with dimension 1 last: 2-D as is, [N, F, T] as [N*T, F], [N, C, H, W]
   * as [N*H*W, C]. With a per-example mask ([N, 1] or [N]) or a per-step mask ([N, T] for rank 3),
   * the rows whose mask is 0 are dropped (null when all are); other masks are ignored here (callers apply them).
   */
  public static INDArray to2d(INDArray data, INDArray mask) {
    int r = data.rank();
    INDArray d2;
    if (r == 2) {
      d2 = data;
    } else if (r == 3 || r == 4) {
      int[] perm = r == 3 ? new int[] {0, 2, 1} : new int[] {0, 2, 3, 1};
      d2 = data.permute(perm).dup('c').reshape(-1, data.size(1));
    } else {
      throw new UnsupportedOperationException("data of rank " + r + ": ranks 2 to 4 are supported");
    }
    boolean rowMask = mask != null && (r == 2 && mask.isColumnVectorOrScalar() || r == 2 && mask.rank() == 1
        || r == 3 && mask.rank() == 2);
    if (!rowMask) {
      return d2;
    }
    int[] rows = nonZero(mask);
    if (rows.length == 0) {
      return null; // everything masked
    }
    return rows.length == d2.size(0) ? d2 : d2.getRows(rows);
  }

  /** The linear indices ('c' order) where {@code mask} is not 0. */
  public static int[] nonZero(INDArray mask) {
    double[] m = mask.castTo(org.nd4j.linalg.api.buffer.DataType.DOUBLE).reshape(-1).toDoubleVector();
    int n = 0;
    for (double v : m) {
      n += v != 0 ? 1 : 0;
    }
    int[] rows = new int[n];
    for (int i = 0, k = 0; i < m.length; i++) {
      if (m[i] != 0) {
        rows[k++] = i;
      }
    }
    return rows;
  }
}
