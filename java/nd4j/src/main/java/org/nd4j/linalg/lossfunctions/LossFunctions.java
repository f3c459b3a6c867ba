package org.nd4j.linalg.lossfunctions;

import org.nd4j.linalg.lossfunctions.impl.LossBinaryXENT;
import org.nd4j.linalg.lossfunctions.impl.LossL1;
import org.nd4j.linalg.lossfunctions.impl.LossL2;
import org.nd4j.linalg.lossfunctions.impl.LossMAE;
import org.nd4j.linalg.lossfunctions.impl.LossMCXENT;
import org.nd4j.linalg.lossfunctions.impl.LossMSE;
import org.nd4j.linalg.lossfunctions.impl.LossNegativeLogLikelihood;

/** ND4J's loss names ({@code LossFunctions.LossFunction.MCXENT}). */
public class LossFunctions {
  /**
   * All of ND4J's constants. {@link #getILossFunction()} gives the loss for those the drop-in has and
   * refuses the others by name; {@link #toNdrt()} gives org.ndrt.nn's output-layer loss.
   */
  public enum LossFunction {
    MSE,
    L1,
    XENT,
    MCXENT,
    SPARSE_MCXENT,
    SQUARED_LOSS,
    RECONSTRUCTION_CROSSENTROPY,
    NEGATIVELOGLIKELIHOOD,
    COSINE_PROXIMITY,
    HINGE,
    SQUARED_HINGE,
    KL_DIVERGENCE,
    MEAN_ABSOLUTE_ERROR,
    L2,
    MEAN_ABSOLUTE_PERCENTAGE_ERROR,
    MEAN_SQUARED_LOGARITHMIC_ERROR,
    POISSON,
    WASSERSTEIN;

    /**
     * The loss object, as ND4J maps the names.
     *
     * @throws UnsupportedOperationException for the losses not in the drop-in yet
     */
    public ILossFunction getILossFunction() {
      switch (this) {
        case MSE:
        case SQUARED_LOSS:
          return new LossMSE();
        case L1: return new LossL1();
        case XENT: return new LossBinaryXENT();
        case MCXENT: return new LossMCXENT();
        case NEGATIVELOGLIKELIHOOD: return new LossNegativeLogLikelihood();
        case MEAN_ABSOLUTE_ERROR: return new LossMAE();
        case L2: return new LossL2();
        default:
          throw new UnsupportedOperationException("LossFunction." + name() + ".getILossFunction: not in ndrt yet (it has "
              + "MSE, SQUARED_LOSS, L1, L2, MEAN_ABSOLUTE_ERROR, XENT, MCXENT, NEGATIVELOGLIKELIHOOD)");
      }
    }

    /**
     * ndrt: org.ndrt.nn's output-layer loss of the same scores (what the Deeplearning4j drop-in trains
     * with). org.ndrt.nn's L1 is the mean absolute error, so ND4J's MEAN_ABSOLUTE_ERROR maps to it;
     * ND4J's L1 (a sum over the outputs) does not.
     *
     * @throws UnsupportedOperationException for those org.ndrt.nn lacks
     */
    public org.ndrt.nn.conf.LossFunction toNdrt() {
      switch (this) {
        case NEGATIVELOGLIKELIHOOD: return org.ndrt.nn.conf.LossFunction.NEGATIVELOGLIKELIHOOD;
        case MCXENT: return org.ndrt.nn.conf.LossFunction.MCXENT;
        case MSE:
        case SQUARED_LOSS:
          return org.ndrt.nn.conf.LossFunction.MSE;
        case XENT: return org.ndrt.nn.conf.LossFunction.XENT;
        case MEAN_ABSOLUTE_ERROR: return org.ndrt.nn.conf.LossFunction.L1;
        default:
          throw new UnsupportedOperationException("LossFunction." + name() + ".toNdrt: org.ndrt.nn's output layers do "
              + "not have it yet (they have NEGATIVELOGLIKELIHOOD, MCXENT, MSE, SQUARED_LOSS, XENT, MEAN_ABSOLUTE_ERROR)");
      }
    }
  }
}
