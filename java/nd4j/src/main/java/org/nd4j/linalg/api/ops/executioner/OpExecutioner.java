package org.nd4j.linalg.api.ops.executioner;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.Op;

/** Runs ops: {@code Nd4j.getExecutioner().exec(op)} returns the op's output. */
public interface OpExecutioner {
  INDArray exec(Op op);

  /** Waits for queued work: ndrt's CPU ops finish before exec returns, so there is nothing to wait for. */
  default void commit() {}
}
