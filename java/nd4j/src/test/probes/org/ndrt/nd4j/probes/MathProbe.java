package org.ndrt.nd4j.probes;

import static org.nd4j.linalg.ops.transforms.Transforms.*;

import java.util.Arrays;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.impl.reduce.longer.MatchCondition;
import org.nd4j.linalg.api.ops.impl.transforms.strict.Sin;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.BooleanIndexing;
import org.nd4j.linalg.indexing.conditions.Conditions;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * Reductions, transforms, conditions and ops with deterministic data (sines of a range, so every
 * sign and size occurs). Compared between real ND4J and ndrt-nd4j by tests/compare_probes.sh.
 */
public class MathProbe {
  static void show(String what, INDArray a) {
    System.out.println(what + " " + a.dataType() + " " + Arrays.toString(a.shape()));
    System.out.println(a);
  }

  public static void main(String[] args) {
    INDArray x = Transforms.sin(Nd4j.linspace(1, 15, 15).reshape(3, 5)).mul(3);
    INDArray d = x.castTo(DataType.DOUBLE);
    show("x", x);
    System.out.println("numbers " + x.sumNumber() + " " + x.meanNumber() + " " + x.maxNumber() + " " + x.minNumber());
    System.out.println("std/var " + d.stdNumber() + " " + d.varNumber() + " " + d.stdNumber(false));
    System.out.println("norms " + d.norm1Number() + " " + d.norm2Number() + " " + d.prodNumber() + " " + d.amaxNumber());
    show("sum0", x.sum(0));
    show("sum1", x.sum(1));
    show("sum keep", x.sum(true, 1));
    show("mean0", x.mean(0));
    show("max1", x.max(1));
    show("min0", x.min(0));
    show("std0", x.std(0));
    show("var1", x.var(1));
    show("norm2 1", x.norm2(1));
    show("argMax0", x.argMax(0));
    show("argMax1", Nd4j.argMax(x, 1));
    show("argMax all", x.argMax());
    show("Nd4j.mean", Nd4j.mean(x, 0));
    show("Nd4j.var", Nd4j.var(x));
    show("sigmoid", sigmoid(x));
    show("tanh", tanh(x));
    show("exp", exp(x));
    show("abs", abs(x));
    show("relu", relu(x));
    show("sqrt", sqrt(abs(x)));
    show("log", log(abs(x)));
    show("pow", pow(x, 2));
    show("max", Transforms.max(x, 0.5));
    show("min", Transforms.min(x, -0.5));
    show("floor", floor(x));
    show("ceil", ceil(x));
    show("round", round(x));
    show("sign", sign(x));
    show("softmax", softmax(x));
    show("hardTanh", hardTanh(x));
    show("not", Transforms.not(x.gt(0)));
    System.out.println("cosineSim " + cosineSim(d.getRow(0), d.getRow(1)) + " euclidean "
        + euclideanDistance(d.getRow(0), d.getRow(2)) + " manhattan " + manhattanDistance(d.getRow(1), d.getRow(2)));
    show("lt", x.lt(0));
    show("eq", x.eq(x));
    INDArray r = x.dup();
    BooleanIndexing.replaceWhere(r, 0.0, Conditions.lessThan(0.0));
    show("replaceWhere number", r);
    INDArray s = x.dup();
    BooleanIndexing.replaceWhere(s, Nd4j.valueArrayOf(new long[] {3, 5}, 9.0), Conditions.greaterThan(1.0));
    show("replaceWhere array", s);
    INDArray n = Nd4j.create(new double[] {1, Double.NaN, 3});
    BooleanIndexing.replaceWhere(n, -1.0, Conditions.isNan());
    show("replace NaN", n);
    System.out.println("and/or " + BooleanIndexing.and(abs(x), Conditions.greaterThan(0.0)) + " "
        + BooleanIndexing.or(x, Conditions.greaterThan(2.5)) + " " + BooleanIndexing.or(x, Conditions.greaterThan(5)));
    System.out.println("match " + Nd4j.getExecutioner().exec(new MatchCondition(x, Conditions.greaterThan(0.0))).getInt(0));
    INDArray z = x.dup();
    show("Sin exec", Nd4j.getExecutioner().exec(new Sin(z)));
    show("Sin in place", z);
    System.out.println("asDouble " + Arrays.toString(x.getRow(0).dup().data().asDouble()));
    System.out.println("asInt " + Arrays.toString(x.mul(10).data().asInt()));
    System.out.println("asBytes " + Arrays.toString(Nd4j.create(new float[] {1.5f, -2}).data().asBytes()));
    System.out.println("type " + x.data().dataType() + " " + Nd4j.dataType());
    show("big", Nd4j.linspace(1, 2000, 2000).reshape(40, 50));
  }
}
