package org.ndrt.distributed;

import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.capi.NdrtC;

/**
 * The tensors of one TCP collective as one run of elements: 1-D views, read and written a chunk at a
 * time through a host buffer. A strided view is staged in a contiguous copy, written back at the end.
 */
final class TcpFlat implements AutoCloseable {
  /** The elements of all the tensors. */
  final long total;
  /** Of the tensors' shapes, the same in every JVM (ranks compare it). */
  final long shapeHash;
  private final Tensor[] given;
  private final Tensor[] dense; // a contiguous copy of a strided tensor, else null
  private final Tensor[] flat;
  private final long[] start; // tensor i holds elements [start[i], start[i + 1])
  private final int itemSize;

  TcpFlat(Tensor[] ts) {
    int n = ts.length;
    given = ts;
    dense = new Tensor[n];
    flat = new Tensor[n];
    start = new long[n + 1];
    itemSize = ts[0].dtype().itemSize();
    long h = n;
    try {
      for (int i = 0; i < n; ++i) {
        Tensor t = ts[i];
        h = 31 * h + Arrays.hashCode(t.shape());
        long numel = t.numel();
        if (!t.isContiguous()) {
          dense[i] = t.contiguous();
        }
        flat[i] = (dense[i] != null ? dense[i] : t).reshape(numel);
        start[i + 1] = start[i] + numel;
      }
    } catch (RuntimeException | Error e) {
      close();
      throw e;
    }
    total = start[n];
    shapeHash = h;
  }

  /** Elements {@code [c0, c0 + n)} into {@code buf}'s first bytes. */
  void read(long c0, int n, ByteBuffer buf) {
    copy(c0, n, buf, true);
  }

  /** {@code buf}'s first bytes into elements {@code [c0, c0 + n)}. */
  void write(long c0, int n, ByteBuffer buf) {
    copy(c0, n, buf, false);
  }

  private void copy(long c0, int n, ByteBuffer buf, boolean read) {
    for (int i = 0; i < flat.length; ++i) {
      long a = Math.max(c0, start[i]);
      long b = Math.min(c0 + n, start[i + 1]);
      if (a >= b) {
        continue;
      }
      ByteBuffer part = buf.slice((int) (a - c0) * itemSize, (int) (b - a) * itemSize);
      boolean whole = a == start[i] && b == start[i + 1];
      Tensor v = whole ? flat[i] : flat[i].slice(0, a - start[i], b - start[i]);
      try {
        if (read) {
          NdrtC.tensor_read(v.handle(), part);
        } else {
          NdrtC.tensor_write(v.handle(), part);
        }
      } finally {
        Reference.reachabilityFence(v);
        if (!whole) {
          v.close();
        }
      }
    }
  }

  /** The staged copies back into the strided tensors they came from. */
  void writeBack() {
    for (int i = 0; i < given.length; ++i) {
      if (dense[i] != null) {
        Ops.copy(dense[i], given[i]);
      }
    }
  }

  @Override
  public void close() {
    for (Tensor[] ts : new Tensor[][] {flat, dense}) {
      for (Tensor t : ts) {
        if (t != null) {
          t.close();
        }
      }
    }
  }
}
