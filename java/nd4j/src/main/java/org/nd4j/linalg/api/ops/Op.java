package org.nd4j.linalg.api.ops;

import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * ND4J's legacy op: inputs x (and y), output z, run by {@code Nd4j.getExecutioner().exec(op)}. ndrt's
 * ops run themselves through the runtime ({@link BaseOp#exec()}).
 */
public interface Op {
  String opName();

  INDArray x();

  INDArray y();

  INDArray z();

  void setX(INDArray x);

  void setY(INDArray y);

  void setZ(INDArray z);
}
