package org.ndrt.distributed;

import java.nio.ByteBuffer;
import org.ndrt.DType;

/** The element-wise reductions of TcpCommunicator on host buffers (native byte order). */
final class TcpReduce {
  private TcpReduce() {}

  /** {@code a[off..]} = op(a[off..], b[0..]) over {@code n} elements; MEAN sums (the owner divides after). */
  static void into(DType d, ReduceOp op, ByteBuffer a, int off, ByteBuffer b, int n) {
    boolean max = op == ReduceOp.MAX;
    boolean sum = op == ReduceOp.SUM || op == ReduceOp.MEAN;
    switch (d) {
      case F32:
        for (int i = 0; i < n; ++i) {
          int p = off + 4 * i;
          float x = a.getFloat(p);
          float y = b.getFloat(4 * i);
          a.putFloat(p, sum ? x + y : max ? Math.max(x, y) : Math.min(x, y));
        }
        break;
      case F64:
        for (int i = 0; i < n; ++i) {
          int p = off + 8 * i;
          double x = a.getDouble(p);
          double y = b.getDouble(8 * i);
          a.putDouble(p, sum ? x + y : max ? Math.max(x, y) : Math.min(x, y));
        }
        break;
      case I32:
        for (int i = 0; i < n; ++i) {
          int p = off + 4 * i;
          int x = a.getInt(p);
          int y = b.getInt(4 * i);
          a.putInt(p, sum ? x + y : max ? Math.max(x, y) : Math.min(x, y));
        }
        break;
      case I64:
        for (int i = 0; i < n; ++i) {
          int p = off + 8 * i;
          long x = a.getLong(p);
          long y = b.getLong(8 * i);
          a.putLong(p, sum ? x + y : max ? Math.max(x, y) : Math.min(x, y));
        }
        break;
      default:
        throw new UnsupportedOperationException("TcpCommunicator: allreduce of dtype " + d.shortName());
    }
  }

  /** {@code a[off..]} /= {@code by} over {@code n} float elements. */
  static void divide(DType d, ByteBuffer a, int off, int n, int by) {
    if (d == DType.F32) {
      for (int i = 0; i < n; ++i) {
        int p = off + 4 * i;
        a.putFloat(p, a.getFloat(p) / by);
      }
    } else if (d == DType.F64) {
      for (int i = 0; i < n; ++i) {
        int p = off + 8 * i;
        a.putDouble(p, a.getDouble(p) / by);
      }
    } else {
      throw new UnsupportedOperationException("TcpCommunicator: MEAN of dtype " + d.shortName());
    }
  }
}
