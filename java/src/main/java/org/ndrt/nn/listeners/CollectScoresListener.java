package org.ndrt.nn.listeners;

import java.util.ArrayList;
import java.util.List;
import org.ndrt.nn.MultiLayerNetwork;

/**
 * Records (iteration, epoch, score) every {@code frequency} iterations, for plots, tests and early
 * stopping. Safe to read from another thread while training runs (methods are synchronized).
 */
public final class CollectScoresListener implements TrainingListener {
  /** One recorded score. */
  public record Score(long iteration, int epoch, double score) {}

  private final int frequency;
  private final List<Score> scores = new ArrayList<>();

  /** Records every iteration. */
  public CollectScoresListener() {
    this(1);
  }

  /** Records iterations whose number is a multiple of {@code frequency} (at least 1). */
  public CollectScoresListener(int frequency) {
    if (frequency < 1) {
      throw new IllegalArgumentException("frequency must be at least 1, got " + frequency);
    }
    this.frequency = frequency;
  }

  @Override
  public synchronized void iterationDone(org.ndrt.nn.Model model, long iteration, int epoch, double score,
      int examples) {
    if (iteration % frequency == 0) {
      scores.add(new Score(iteration, epoch, score));
    }
  }

  /** A copy of the scores recorded so far, oldest first. */
  public synchronized List<Score> getScores() {
    return List.copyOf(scores);
  }

  /** The iteration numbers recorded, oldest first. */
  public synchronized long[] iterations() {
    return scores.stream().mapToLong(Score::iteration).toArray();
  }

  /** The score values recorded, oldest first. */
  public synchronized double[] scoreValues() {
    return scores.stream().mapToDouble(Score::score).toArray();
  }

  /** How many scores were recorded. */
  public synchronized int size() {
    return scores.size();
  }

  /** The latest score recorded, or {@code null} if none. */
  public synchronized Score last() {
    return scores.isEmpty() ? null : scores.get(scores.size() - 1);
  }

  /** Forgets every score recorded. */
  public synchronized void clear() {
    scores.clear();
  }
}
