package org.nd4j.linalg.api.ops;

import org.nd4j.linalg.api.ndarray.INDArray;

/** The ops of this drop-in: each knows how to run itself as runtime ops. */
public abstract class BaseOp implements Op {
  protected INDArray x;
  protected INDArray y;
  protected INDArray z;

  protected BaseOp() {}

  protected BaseOp(INDArray x, INDArray y, INDArray z) {
    this.x = x;
    this.y = y;
    this.z = z;
  }

  /** Runs the op and returns its output (z). */
  public abstract INDArray exec();

  @Override public INDArray x() { return x; }
  @Override public INDArray y() { return y; }
  @Override public INDArray z() { return z; }
  @Override public void setX(INDArray x) { this.x = x; }
  @Override public void setY(INDArray y) { this.y = y; }
  @Override public void setZ(INDArray z) { this.z = z; }
}
