package org.deeplearning4j.optimize.api;

import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.api.Model;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Deeplearning4j's training listener. The drop-in's network calls iterationDone, onEpochStart and
 * onEpochEnd (bridged from org.ndrt.nn's listener hooks); org.ndrt.nn has no hooks for the forward,
 * gradient and backward passes, so those three are never called.
 */
public interface TrainingListener {
  void iterationDone(Model model, int iteration, int epoch);

  void onEpochStart(Model model);

  void onEpochEnd(Model model);

  void onForwardPass(Model model, List<INDArray> activations);

  void onForwardPass(Model model, Map<String, INDArray> activations);

  void onGradientCalculation(Model model);

  void onBackwardPass(Model model);
}
