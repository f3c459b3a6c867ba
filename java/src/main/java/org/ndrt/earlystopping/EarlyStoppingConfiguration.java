package org.ndrt.earlystopping;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * What an {@link EarlyStoppingTrainer} does: when to stop, how to score, where to keep models. Built
 * with {@link Builder}; immutable (but the conditions, calculator and saver it holds keep state).
 */
public final class EarlyStoppingConfiguration {
  private final List<EpochTerminationCondition> epochConditions;
  private final List<IterationTerminationCondition> iterationConditions;
  private final ScoreCalculator scoreCalculator;
  private final int evaluateEveryNEpochs;
  private final EarlyStoppingModelSaver modelSaver;
  private final boolean saveLastModel;

  private EarlyStoppingConfiguration(Builder b) {
    epochConditions = List.copyOf(b.epochConditions);
    iterationConditions = List.copyOf(b.iterationConditions);
    scoreCalculator = b.scoreCalculator;
    evaluateEveryNEpochs = b.evaluateEveryNEpochs;
    modelSaver = b.modelSaver != null ? b.modelSaver : new InMemoryModelSaver();
    saveLastModel = b.saveLastModel;
  }

  /** @return the epoch termination conditions, in the order they are checked (unmodifiable) */
  public List<EpochTerminationCondition> getEpochTerminationConditions() {
    return epochConditions;
  }

  /** @return the iteration termination conditions, in the order they are checked (unmodifiable) */
  public List<IterationTerminationCondition> getIterationTerminationConditions() {
    return iterationConditions;
  }

  /** @return the score calculator, or null if epochs are not scored */
  public ScoreCalculator getScoreCalculator() {
    return scoreCalculator;
  }

  /** @return n: the score is computed after epochs n-1, 2n-1, ... (counted from 0) and the last one */
  public int getEvaluateEveryNEpochs() {
    return evaluateEveryNEpochs;
  }

  /** @return where the best (and latest) models are kept */
  public EarlyStoppingModelSaver getModelSaver() {
    return modelSaver;
  }

  /** @return whether the latest model is saved too, after every epoch */
  public boolean isSaveLastModel() {
    return saveLastModel;
  }

  @Override
  public String toString() {
    return "EarlyStoppingConfiguration(epochConditions=" + epochConditions + ", iterationConditions="
        + iterationConditions + ", scoreCalculator=" + scoreCalculator + ", evaluateEveryNEpochs="
        + evaluateEveryNEpochs + ", modelSaver=" + modelSaver + ", saveLastModel=" + saveLastModel + ")";
  }

  /**
   * Builds a configuration. Defaults: no conditions (at least one is required), no score calculator,
   * every epoch scored, an {@link InMemoryModelSaver}, latest model not saved.
   */
  public static final class Builder {
    private List<EpochTerminationCondition> epochConditions = List.of();
    private List<IterationTerminationCondition> iterationConditions = List.of();
    private ScoreCalculator scoreCalculator;
    private int evaluateEveryNEpochs = 1;
    private EarlyStoppingModelSaver modelSaver;
    private boolean saveLastModel;

    /** An empty builder. */
    public Builder() {}

    /**
     * Sets (replaces) the epoch termination conditions, checked in this order after each epoch.
     *
     * @param conditions the conditions
     * @return this builder
     * @throws IllegalArgumentException if one is null
     */
    public Builder epochTerminationConditions(EpochTerminationCondition... conditions) {
      return epochTerminationConditions(conditions == null ? null : Arrays.asList(conditions));
    }

    /**
     * Sets (replaces) the epoch termination conditions, checked in this order after each epoch.
     *
     * @param conditions the conditions
     * @return this builder
     * @throws IllegalArgumentException if the list or one of its elements is null
     */
    public Builder epochTerminationConditions(List<? extends EpochTerminationCondition> conditions) {
      epochConditions = checked(conditions, "epoch");
      return this;
    }

    /**
     * Sets (replaces) the iteration termination conditions, checked in this order after each minibatch.
     *
     * @param conditions the conditions
     * @return this builder
     * @throws IllegalArgumentException if one is null
     */
    public Builder iterationTerminationConditions(IterationTerminationCondition... conditions) {
      return iterationTerminationConditions(conditions == null ? null : Arrays.asList(conditions));
    }

    /**
     * Sets (replaces) the iteration termination conditions, checked in this order after each minibatch.
     *
     * @param conditions the conditions
     * @return this builder
     * @throws IllegalArgumentException if the list or one of its elements is null
     */
    public Builder iterationTerminationConditions(List<? extends IterationTerminationCondition> conditions) {
      iterationConditions = checked(conditions, "iteration");
      return this;
    }

    /**
     * Sets how epochs are scored; the best-scoring model is kept. Needed by every epoch condition
     * whose {@link EpochTerminationCondition#needsScore()} is true.
     *
     * @param calculator the calculator, or null for none
     * @return this builder
     */
    public Builder scoreCalculator(ScoreCalculator calculator) {
      scoreCalculator = calculator;
      return this;
    }

    /**
     * Scores only every n-th epoch (scoring can cost as much as training). The last epoch is scored
     * too when a score-free condition such as {@link MaxEpochsTerminationCondition} ends training.
     *
     * @param n at least 1 (the default: every epoch)
     * @return this builder
     * @throws IllegalArgumentException if {@code n < 1}
     */
    public Builder evaluateEveryNEpochs(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("EarlyStoppingConfiguration: evaluateEveryNEpochs must be >= 1, got " + n);
      }
      evaluateEveryNEpochs = n;
      return this;
    }

    /**
     * @param saver where models are kept (default: a new {@link InMemoryModelSaver})
     * @return this builder
     * @throws IllegalArgumentException if {@code saver} is null
     */
    public Builder modelSaver(EarlyStoppingModelSaver saver) {
      if (saver == null) {
        throw new IllegalArgumentException("EarlyStoppingConfiguration: the model saver must not be null");
      }
      modelSaver = saver;
      return this;
    }

    /**
     * @param save whether to save the latest model too, after every epoch and when an iteration
     *     condition stops training (default false)
     * @return this builder
     */
    public Builder saveLastModel(boolean save) {
      saveLastModel = save;
      return this;
    }

    /**
     * @return the configuration
     * @throws IllegalStateException if there is no termination condition at all (training would never
     *     end), if a condition is given twice (its state would be updated twice per check), or if an
     *     epoch condition needs a score and there is no score calculator
     */
    public EarlyStoppingConfiguration build() {
      if (epochConditions.isEmpty() && iterationConditions.isEmpty()) {
        throw new IllegalStateException("EarlyStoppingConfiguration: no termination condition, so training would"
            + " never end; add one, e.g. epochTerminationConditions(new MaxEpochsTerminationCondition(n))");
      }
      Map<Object, Boolean> seen = new IdentityHashMap<>();
      List<Object> all = new ArrayList<>(epochConditions);
      all.addAll(iterationConditions);
      for (Object c : all) {
        if (seen.put(c, Boolean.TRUE) != null) {
          throw new IllegalStateException("EarlyStoppingConfiguration: condition " + c + " is given twice");
        }
      }
      if (scoreCalculator == null) {
        for (EpochTerminationCondition c : epochConditions) {
          if (c.needsScore()) {
            throw new IllegalStateException("EarlyStoppingConfiguration: " + c
                + " needs a score: set scoreCalculator(...), e.g. new DataSetLossCalculator(testData, true)");
          }
        }
      }
      return new EarlyStoppingConfiguration(this);
    }

    private static <T> List<T> checked(List<? extends T> conditions, String kind) {
      // Looped rather than contains(null): List.of(...).contains(null) throws.
      boolean bad = conditions == null;
      for (int i = 0; !bad && i < conditions.size(); i++) {
        bad = conditions.get(i) == null;
      }
      if (bad) {
        throw new IllegalArgumentException("EarlyStoppingConfiguration: the " + kind + " termination conditions"
            + " must not be (or contain) null: " + conditions);
      }
      return new ArrayList<>(conditions);
    }
  }
}
