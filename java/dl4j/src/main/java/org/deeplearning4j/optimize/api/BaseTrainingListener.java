package org.deeplearning4j.optimize.api;

import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.api.Model;
import org.nd4j.linalg.api.ndarray.INDArray;

/** Deeplearning4j's listener with every method empty: override what you need. */
public abstract class BaseTrainingListener implements TrainingListener {
  @Override
  public void iterationDone(Model model, int iteration, int epoch) {}

  @Override
  public void onEpochStart(Model model) {}

  @Override
  public void onEpochEnd(Model model) {}

  @Override
  public void onForwardPass(Model model, List<INDArray> activations) {}

  @Override
  public void onForwardPass(Model model, Map<String, INDArray> activations) {}

  @Override
  public void onGradientCalculation(Model model) {}

  @Override
  public void onBackwardPass(Model model) {}
}
