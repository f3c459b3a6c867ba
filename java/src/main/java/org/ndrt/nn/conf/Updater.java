package org.ndrt.nn.conf;

import org.ndrt.nn.updater.AdaGrad;
import org.ndrt.nn.updater.Adam;
import org.ndrt.nn.updater.Nesterovs;
import org.ndrt.nn.updater.RmsProp;
import org.ndrt.nn.updater.Sgd;

/**
 * Deeplearning4j's updater enum ({@code org.deeplearning4j.nn.conf.Updater}), for configurations
 * written as {@code .updater(Updater.NESTEROVS)} (deprecated in Deeplearning4j: the modern form is an
 * updater object, {@code .updater(new Nesterovs(0.1, 0.9))} with {@link org.ndrt.nn.updater}). The
 * learning rate is the builder's {@code learningRate(..)} when given, else the updater's
 * Deeplearning4j default ({@link #defaultLearningRate()}); Nesterovs takes {@code momentum(..)}
 * (default 0.9). The updaters ndrt does not have yet are refused when the configuration is built.
 */
public enum Updater {
  SGD,
  ADAM,
  ADAMAX,
  ADADELTA,
  NESTEROVS,
  NADAM,
  ADAGRAD,
  RMSPROP,
  AMSGRAD,
  NONE,
  CUSTOM;

  /** Deeplearning4j's default learning rate of this updater ({@code getIUpdaterWithDefaultConfig()}). */
  public double defaultLearningRate() {
    switch (this) {
      case SGD:
      case ADAM:
      case ADAMAX:
      case NADAM:
      case AMSGRAD:
        return 1e-3;
      case ADADELTA:
        return 1.0;
      default:
        return 0.1;
    }
  }

  /**
   * The updater object: this kind with {@code learningRate} (NaN: {@link #defaultLearningRate()}) and,
   * for NESTEROVS, {@code momentum} (NaN: 0.9); other hyper-parameters take Deeplearning4j's defaults.
   *
   * @throws IllegalArgumentException for the kinds ndrt has no updater for
   */
  public org.ndrt.nn.updater.Updater create(double learningRate, double momentum) {
    double lr = Double.isNaN(learningRate) ? defaultLearningRate() : learningRate;
    switch (this) {
      case SGD: return new Sgd(lr);
      case ADAM: return new Adam(lr);
      case NESTEROVS: return new Nesterovs(lr, Double.isNaN(momentum) ? 0.9 : momentum);
      case ADAGRAD: return new AdaGrad(lr);
      case RMSPROP: return new RmsProp(lr);
      default:
        throw new IllegalArgumentException("Updater." + name() + " is not in ndrt yet: use SGD, ADAM, NESTEROVS, ADAGRAD "
            + "or RMSPROP (or their objects in org.ndrt.nn.updater)");
    }
  }

  /** How the object is written in Java source, e.g. {@code new Nesterovs(0.1, 0.9)} (for messages). */
  static String source(org.ndrt.nn.updater.Updater u) {
    String name = u.getClass().getSimpleName();
    StringBuilder sb = new StringBuilder("new ").append(name).append('(').append(u.learningRate());
    if (u instanceof Nesterovs) {
      sb.append(", ").append(((Nesterovs) u).momentum());
    }
    return sb.append(')').toString();
  }
}
