package org.nd4j.linalg.activations;

import java.io.Serializable;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.ndarray.INDArray;

/** An activation function, as ND4J's IActivation: both methods work in place on {@code in}. */
public interface IActivation extends Serializable {
  /** Applies the activation to {@code in}, in place; returns {@code in}. */
  INDArray getActivation(INDArray in, boolean training);

  /**
   * dL/dz from the pre-activation {@code in} and dL/da {@code epsilon}; {@code in} is overwritten
   * (it holds dL/dz, returned first). The second is the parameters' gradient (null: none).
   */
  Pair<INDArray, INDArray> backprop(INDArray in, INDArray epsilon);

  int numParams(int inputSize);
}
