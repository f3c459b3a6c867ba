package org.ndrt.nd4j.probes;

import java.util.Arrays;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.impl.transforms.Pad;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.INDArrayIndex;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * Creation, shapes, views, indexing, arithmetic, joining and printing with deterministic data. Run
 * against real ND4J and against ndrt-nd4j by tests/compare_probes.sh, which compares the outputs.
 */
public class ArrayProbe {
  static void show(String what, INDArray a) {
    System.out.println(what + " " + a.dataType() + " " + Arrays.toString(a.shape()) + " rank=" + a.rank()
        + " length=" + a.length() + " vector=" + a.isVector() + " row=" + a.isRowVector() + " column="
        + a.isColumnVector() + " matrix=" + a.isMatrix() + " scalar=" + a.isScalar());
    // Views print through a copy: ND4J 1.0.0-M2.1 prints some rows of views as "[]" (its toString
    // reads past the view's buffer length); ndrt prints their values, a deliberate difference.
    System.out.println(a.isView() ? a.dup() : a);
  }

  static void fails(String what, Runnable r) {
    try {
      r.run();
      System.out.println(what + ": no exception");
    } catch (RuntimeException e) {
      System.out.println(what + ": " + e.getClass().getName());
    }
  }

  public static void main(String[] args) {
    INDArray m = Nd4j.linspace(1, 20, 20).reshape('c', 4, 5);
    show("m", m);
    show("zeros", Nd4j.zeros(2, 3));
    show("ones", Nd4j.ones(3));
    show("valueArrayOf", Nd4j.valueArrayOf(new long[] {2, 2}, 3.5));
    show("create double[]", Nd4j.create(new double[] {-1.25, 0, 2.5}));
    show("create float[][]", Nd4j.create(new float[][] {{1, -2}, {3.125f, 40000}}));
    show("create f order", Nd4j.create(new double[] {1, 2, 3, 4, 5, 6}, new int[] {2, 3}, 'f'));
    show("column", Nd4j.create(new double[] {7, 8, 9}, 3, 1));
    show("eye", Nd4j.eye(3));
    show("diag", Nd4j.diag(Nd4j.create(new double[] {1, 2, 3})));
    show("scalar", Nd4j.scalar(3.25));
    show("small and large", Nd4j.create(new double[] {0.00005, 123456, -0.5, 1e-9, 9999.99}));
    show("long", Nd4j.createFromArray(3L, -4L, 5L));
    show("bool", m.gt(10));
    show("3d", Nd4j.linspace(1, 24, 24).reshape(2, 3, 4));
    show("3d rows", Nd4j.linspace(1, 6, 6).reshape(2, 1, 3));
    show("getRow", m.getRow(1));
    show("getColumn", m.getColumn(2));
    show("getRow keep", m.getRow(1, true));
    show("getColumn keep", m.getColumn(2, true));
    show("get interval", m.get(NDArrayIndex.interval(1, 3)));
    show("get point", m.get(NDArrayIndex.all(), NDArrayIndex.point(4)));
    show("get stride", m.get(NDArrayIndex.interval(0, 2, 4), NDArrayIndex.interval(1, 2, 5)));
    show("getRows", m.getRows(3, 0));
    show("transpose", m.transpose());
    show("reshape f", m.reshape('f', 5, 4));
    show("permute", Nd4j.linspace(1, 24, 24).reshape(2, 3, 4).permute(2, 0, 1));
    INDArray w = m.dup();
    w.getRow(0).addi(100);
    w.getColumn(4).muli(-1);
    w.put(new INDArrayIndex[] {NDArrayIndex.point(2), NDArrayIndex.interval(0, 2)}, Nd4j.create(new float[] {-7, -8}));
    w.putScalar(3, 3, 0.5);
    w.putScalar(1, 9);
    show("written", w);
    System.out.println("getDouble " + w.getDouble(2, 1) + " " + w.getDouble(7) + " " + w.getFloat(1, 1) + " " + w.getInt(3, 3));
    show("add", m.add(1.5));
    show("rsub", m.rsub(10));
    show("rdiv", m.rdiv(60));
    show("mul array", m.mul(m));
    show("addRowVector", m.addRowVector(Nd4j.linspace(1, 5, 5)));
    show("mulColumnVector", m.mulColumnVector(Nd4j.create(new float[] {1, -1, 2, -2}, 4, 1)));
    show("broadcast add", m.add(Nd4j.create(new float[] {10, 20, 30, 40}, 4, 1)));
    show("mmul", m.mmul(m.transpose()));
    show("mmul vec", Nd4j.create(new double[] {1, 2}).reshape(1, 2).mmul(Nd4j.create(new double[][] {{1, 2}, {3, 4}})));
    show("concat 0", Nd4j.concat(0, m, m));
    INDArray[] mesh = Nd4j.meshgrid(Nd4j.linspace(-1.0, 1.0, 4, DataType.DOUBLE), Nd4j.create(new double[] {5, 6.5, 8}));
    show("meshgrid x", mesh[0]);
    show("meshgrid y", mesh[1]);
    show("concat 1", Nd4j.concat(1, m, m));
    show("hstack 1d", Nd4j.hstack(Nd4j.create(new double[] {1, 2}), Nd4j.create(new double[] {3})));
    show("vstack 1d", Nd4j.vstack(Nd4j.create(new double[] {1, 2}), Nd4j.create(new double[] {3, 4})));
    show("toFlattened", Nd4j.toFlattened(m.getRow(0), m.transpose()));
    show("pad", Nd4j.pad(Nd4j.ones(2, 3), new int[] {1, 2}, Pad.Mode.CONSTANT, 0));
    show("broadcast", Nd4j.create(new float[] {1, 2, 3}).broadcast(2, 3));
    show("castTo", m.castTo(DataType.INT));
    show("dup f", m.dup('f'));
    System.out.println("ordering " + m.ordering() + " " + m.transpose().ordering() + " " + m.dup('f').ordering());
    System.out.println("rows/columns " + m.rows() + " " + m.columns() + " " + Nd4j.create(new double[] {1, 2, 3}).columns());
    System.out.println("equals " + m.equals(m.dup()) + " " + m.equals(m.add(1e-7)) + " " + m.equals(m.add(1e-2)));
    System.out.println("data " + Arrays.toString(m.dup('f').data().asFloat()));
    fails("add shape", () -> m.add(Nd4j.ones(2, 2)));
    fails("mmul shape", () -> m.mmul(m));
    fails("reshape length", () -> m.reshape(3, 3));
    fails("getRow", () -> m.getRow(9));
    fails("getDouble", () -> m.getDouble(4, 0));
    fails("interval", () -> m.get(NDArrayIndex.interval(0, 9)));
    fails("permute", () -> m.permute(1, 1));
    fails("create length", () -> Nd4j.create(new double[] {1, 2, 3}, 2, 2));
    fails("sum axis", () -> m.sum(3));
  }
}
