package org.ndrt.spark;

import java.io.Serializable;
import org.ndrt.Tensor;
import org.ndrt.nn.Model;
import org.ndrt.nn.TrainerSupport;

/**
 * What the driver sends the workers at the start of a round (a Spark broadcast): the flat f32
 * parameters, the updater state (null: the workers start theirs afresh, Deeplearning4j's
 * saveUpdater(false)) and the training state (counters, random stream offsets).
 */
final class ModelState implements Serializable {
  private static final long serialVersionUID = 1L;
  final float[] params;
  final float[] updater;
  final long[] training;

  ModelState(float[] params, float[] updater, long[] training) {
    this.params = params;
    this.updater = updater;
    this.training = training;
  }

  static ModelState of(Model m, boolean withUpdater) {
    return new ModelState(m.params().toFloatArray(), withUpdater ? m.updaterState().toFloatArray() : null,
        TrainerSupport.trainingState(m));
  }

  /** Sets {@code m} to this state; without an updater state, m's starts over (the updater's initial value). */
  void applyTo(Model m) {
    try (Tensor p = Tensor.from(params, params.length)) {
      m.setParams(p);
    }
    if (updater != null) {
      try (Tensor u = Tensor.from(updater, updater.length)) {
        m.setUpdaterState(u);
      }
    } else {
      m.updaterState().fill(m.configuration().updater().initialState());
    }
    TrainerSupport.setTrainingState(m, training);
  }
}
