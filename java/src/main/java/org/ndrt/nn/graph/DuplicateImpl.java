package org.ndrt.nn.graph;

import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;

/**
 * DuplicateToTimeSeriesVertex: rows [N, F] (input 0) repeated at each of the T steps of input 1's
 * sequences [N, T, F'] (which gets no gradient): y [N, T, F]; backward sums dy over the steps. The
 * repeated rows are written out (one copy): the recurrent layers' GEMMs take no stride-0 input.
 */
final class DuplicateImpl extends VertexImpl {
  private Tensor rows;
  private Tensor rowsOf;
  private Tensor wide;

  DuplicateImpl(DType dtype) {
    super(dtype);
  }

  @Override
  public Tensor forward(Tensor[] in, boolean training) {
    Tensor x = in[0];
    long[] s = x.shape();
    long[] r = in[1].shape();
    if (r.length != 3 || r[0] != s[0]) {
      throw new IllegalArgumentException("DuplicateToTimeSeriesVertex: rows " + java.util.Arrays.toString(s)
          + " and the reference sequences (internal [N, T, F]) " + java.util.Arrays.toString(r) + " differ in N");
    }
    if (rowsOf != x || wide.shape()[1] != r[1]) {
      if (wide != null) {
        wide.close();
        rows.close();
      }
      rows = x.reshape(s[0], 1, s[1]);
      wide = rows.expand(s[0], r[1], s[1]);
      rowsOf = x;
    }
    return Ops.copy(wide, buffer("y", dtype, s[0], r[1], s[1]));
  }

  @Override
  public Tensor[] backward(Tensor dy) {
    long[] s = dy.shape();
    return new Tensor[] {Ops.sum(dy, new long[] {1}, false, buffer("dx", dtype, s[0], s[2])), null};
  }

  @Override
  public void close() {
    if (wide != null) {
      wide.close();
      rows.close();
      wide = null;
    }
    rowsOf = null;
    super.close();
  }
}
