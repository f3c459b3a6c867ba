package org.nd4j.linalg.lossfunctions;

import java.io.Serializable;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * A loss over an output layer's pre-activations, as ND4J's ILossFunction: the score (summed, or
 * averaged over the examples), per-example scores [N, 1], and dL/d(preOutput).
 */
public interface ILossFunction extends Serializable {
  double computeScore(INDArray labels, INDArray preOutput, IActivation activationFn, INDArray mask, boolean average);

  INDArray computeScoreArray(INDArray labels, INDArray preOutput, IActivation activationFn, INDArray mask);

  INDArray computeGradient(INDArray labels, INDArray preOutput, IActivation activationFn, INDArray mask);

  Pair<Double, INDArray> computeGradientAndScore(INDArray labels, INDArray preOutput, IActivation activationFn,
      INDArray mask, boolean average);

  String name();
}
