package org.nd4j.linalg.api.ops;

import java.util.List;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * ND4J's custom (declarable) op: inputs and outputs as lists, run by {@code Nd4j.exec(op)} or
 * {@code Nd4j.getExecutioner().exec(op)}, which return the outputs. ndrt's run themselves through the
 * runtime (org.ndrt.nd4j.BaseCustomOp); ND4J's argument-list methods are not here.
 */
public interface CustomOp {
  String opName();

  List<INDArray> inputArguments();

  List<INDArray> outputArguments();
}
