package org.nd4j.linalg.api.ops.executioner;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.CustomOp;
import org.nd4j.linalg.api.ops.Op;

/** Runs ops: {@code Nd4j.getExecutioner().exec(op)} returns the op's output. */
public interface OpExecutioner {
  INDArray exec(Op op);

  /** Runs a custom op; returns its outputs. */
  default INDArray[] exec(CustomOp op) {
    if (op instanceof org.ndrt.nd4j.BaseCustomOp) {
      return ((org.ndrt.nd4j.BaseCustomOp) op).run();
    }
    throw new UnsupportedOperationException("ndrt's ND4J drop-in does not implement op " + op.getClass().getName());
  }

  /** Waits for queued work: ndrt's CPU ops finish before exec returns, so there is nothing to wait for. */
  default void commit() {}
}
