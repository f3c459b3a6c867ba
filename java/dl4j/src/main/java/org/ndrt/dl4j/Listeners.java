package org.ndrt.dl4j;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.optimize.api.TrainingListener;

/**
 * Deeplearning4j listeners as org.ndrt.nn listeners (one naming an org.ndrt listener, such as
 * StatsListener: that listener itself), for the drop-in's MultiLayerNetwork and ComputationGraph.
 */
public final class Listeners {
  private Listeners() {}

  /**
   * Each listener called with the drop-in's model: {@code model} at epoch start and end, {@code
   * iterationModel}'s at each iteration (MultiLayerNetwork's pretraining gives the layer there).
   */
  public static List<org.ndrt.nn.listeners.TrainingListener> bridge(List<TrainingListener> listeners, Model model,
      Supplier<Model> iterationModel) {
    List<org.ndrt.nn.listeners.TrainingListener> bridged = new ArrayList<>();
    for (TrainingListener l : listeners) {
      if (l instanceof NdrtBacked && ((NdrtBacked<?>) l).ndrt() instanceof org.ndrt.nn.listeners.TrainingListener) {
        // A name over an org.ndrt listener (StatsListener): that listener itself, seeing the org.ndrt network.
        bridged.add((org.ndrt.nn.listeners.TrainingListener) ((NdrtBacked<?>) l).ndrt());
        continue;
      }
      bridged.add(new org.ndrt.nn.listeners.TrainingListener() {
        @Override
        public void onEpochStart(org.ndrt.nn.Model m, int epoch, long iterations, int batch) {
          l.onEpochStart(model);
        }

        @Override
        public void iterationDone(org.ndrt.nn.Model m, long iteration, int epoch, double score, int n) {
          l.iterationDone(iterationModel.get(), (int) iteration, epoch);
        }

        @Override
        public void onEpochEnd(org.ndrt.nn.Model m, int epoch) {
          l.onEpochEnd(model);
        }
      });
    }
    return bridged;
  }
}
