package org.ndrt.nn.conf;

/**
 * Deeplearning4j's {@code org.nd4j.linalg.lossfunctions.LossFunctions}: the enum {@link
 * LossFunction} that {@code new OutputLayer.Builder(LossFunctions.LossFunction.NEGATIVELOGLIKELIHOOD)}
 * takes. Each constant names Deeplearning4j's loss; {@link LossFunction#toNdrt()} gives ndrt's
 * ({@link org.ndrt.nn.conf.LossFunction}), and the losses ndrt does not have yet are refused when an
 * output layer is configured with them.
 */
public final class LossFunctions {
  private LossFunctions() {}

  /** Deeplearning4j's loss functions by name. */
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
     * ndrt's loss of the same meaning: NEGATIVELOGLIKELIHOOD, MCXENT, MSE, XENT and L1 by name, and
     * MEAN_ABSOLUTE_ERROR as L1 (ndrt's L1 is the mean absolute error over all elements;
     * Deeplearning4j's L1 sums over the outputs, so its scores are nOut times larger).
     *
     * @throws IllegalArgumentException for the losses ndrt does not have yet
     */
    public org.ndrt.nn.conf.LossFunction toNdrt() {
      switch (this) {
        case NEGATIVELOGLIKELIHOOD: return org.ndrt.nn.conf.LossFunction.NEGATIVELOGLIKELIHOOD;
        case MCXENT: return org.ndrt.nn.conf.LossFunction.MCXENT;
        case MSE: return org.ndrt.nn.conf.LossFunction.MSE;
        case XENT: return org.ndrt.nn.conf.LossFunction.XENT;
        case L1:
        case MEAN_ABSOLUTE_ERROR:
          return org.ndrt.nn.conf.LossFunction.L1;
        default:
          throw new IllegalArgumentException("LossFunctions.LossFunction." + name() + " is not in ndrt yet: use "
              + "NEGATIVELOGLIKELIHOOD, MCXENT, MSE, XENT, L1 or MEAN_ABSOLUTE_ERROR");
      }
    }
  }
}
