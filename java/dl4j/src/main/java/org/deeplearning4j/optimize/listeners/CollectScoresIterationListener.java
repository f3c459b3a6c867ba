package org.deeplearning4j.optimize.listeners;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.optimize.api.BaseTrainingListener;
import org.nd4j.common.primitives.Pair;

/** Keeps (iteration, score) every frequency iterations, as Deeplearning4j's. */
public class CollectScoresIterationListener extends BaseTrainingListener {
  private final int frequency;
  private final List<Pair<Integer, Double>> scores = new ArrayList<>();

  public CollectScoresIterationListener() {
    this(1);
  }

  public CollectScoresIterationListener(int frequency) {
    this.frequency = Math.max(1, frequency);
  }

  @Override
  public synchronized void iterationDone(Model model, int iteration, int epoch) {
    if (iteration % frequency == 0) {
      scores.add(new Pair<>(iteration, model.score()));
    }
  }

  public synchronized List<Pair<Integer, Double>> getScoreVsIter() {
    return new ArrayList<>(scores);
  }
}
