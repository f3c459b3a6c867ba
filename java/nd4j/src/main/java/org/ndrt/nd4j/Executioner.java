package org.ndrt.nd4j;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.BaseOp;
import org.nd4j.linalg.api.ops.Op;
import org.nd4j.linalg.api.ops.executioner.OpExecutioner;

/** Runs this drop-in's ops (each runs itself as runtime ops). */
public final class Executioner implements OpExecutioner {
  public static final Executioner INSTANCE = new Executioner();

  private Executioner() {}

  @Override
  public INDArray exec(Op op) {
    if (op instanceof BaseOp) {
      return ((BaseOp) op).exec();
    }
    throw new UnsupportedOperationException("ndrt's ND4J drop-in does not implement op " + op.getClass().getName());
  }
}
