package org.deeplearning4j.earlystopping;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.deeplearning4j.earlystopping.saver.InMemoryModelSaver;
import org.deeplearning4j.earlystopping.scorecalc.ScoreCalculator;
import org.deeplearning4j.earlystopping.termination.EpochTerminationCondition;
import org.deeplearning4j.earlystopping.termination.IterationTerminationCondition;
import org.deeplearning4j.nn.api.Model;

/**
 * Deeplearning4j's early-stopping configuration: plain data with Deeplearning4j's builder and defaults
 * (an InMemoryModelSaver, every epoch scored, latest model not saved). The drop-in's trainer checks it
 * through org.ndrt.earlystopping's builder (at least one condition, a score calculator for the
 * conditions that need one) when it trains.
 */
public class EarlyStoppingConfiguration<T extends Model> implements Serializable {
  private EarlyStoppingModelSaver<T> modelSaver;
  private List<EpochTerminationCondition> epochTerminationConditions;
  private List<IterationTerminationCondition> iterationTerminationConditions;
  private boolean saveLastModel;
  private int evaluateEveryNEpochs;
  private ScoreCalculator<T> scoreCalculator;

  private EarlyStoppingConfiguration(Builder<T> b) {
    modelSaver = b.modelSaver;
    epochTerminationConditions = b.epochTerminationConditions;
    iterationTerminationConditions = b.iterationTerminationConditions;
    saveLastModel = b.saveLastModel;
    evaluateEveryNEpochs = b.evaluateEveryNEpochs;
    scoreCalculator = b.scoreCalculator;
  }

  public EarlyStoppingModelSaver<T> getModelSaver() {
    return modelSaver;
  }

  public List<EpochTerminationCondition> getEpochTerminationConditions() {
    return epochTerminationConditions;
  }

  public List<IterationTerminationCondition> getIterationTerminationConditions() {
    return iterationTerminationConditions;
  }

  public boolean isSaveLastModel() {
    return saveLastModel;
  }

  public int getEvaluateEveryNEpochs() {
    return evaluateEveryNEpochs;
  }

  public ScoreCalculator<T> getScoreCalculator() {
    return scoreCalculator;
  }

  /** Deeplearning4j's check: a score calculator and at least one termination condition. */
  public void validate() {
    if (scoreCalculator == null) {
      throw new IllegalStateException("A score calculator must be provided");
    }
    if (epochTerminationConditions.isEmpty() && iterationTerminationConditions.isEmpty()) {
      throw new IllegalStateException("At least one termination condition must be provided");
    }
  }

  @Override
  public String toString() {
    return "EarlyStoppingConfiguration(modelSaver=" + modelSaver + ", epochTerminationConditions="
        + epochTerminationConditions + ", iterationTerminationConditions=" + iterationTerminationConditions
        + ", saveLastModel=" + saveLastModel + ", evaluateEveryNEpochs=" + evaluateEveryNEpochs
        + ", scoreCalculator=" + scoreCalculator + ")";
  }

  public static class Builder<T extends Model> {
    @SuppressWarnings({"unchecked", "rawtypes"})
    private EarlyStoppingModelSaver<T> modelSaver = (EarlyStoppingModelSaver) new InMemoryModelSaver();
    private List<EpochTerminationCondition> epochTerminationConditions = new ArrayList<>();
    private List<IterationTerminationCondition> iterationTerminationConditions = new ArrayList<>();
    private boolean saveLastModel = false;
    private int evaluateEveryNEpochs = 1;
    private ScoreCalculator<T> scoreCalculator;

    public Builder() {}

    public Builder<T> modelSaver(EarlyStoppingModelSaver<T> modelSaver) {
      this.modelSaver = modelSaver;
      return this;
    }

    public Builder<T> epochTerminationConditions(EpochTerminationCondition... conditions) {
      epochTerminationConditions = new ArrayList<>(Arrays.asList(conditions));
      return this;
    }

    public Builder<T> epochTerminationConditions(List<EpochTerminationCondition> conditions) {
      epochTerminationConditions = new ArrayList<>(conditions);
      return this;
    }

    public Builder<T> iterationTerminationConditions(IterationTerminationCondition... conditions) {
      iterationTerminationConditions = new ArrayList<>(Arrays.asList(conditions));
      return this;
    }

    public Builder<T> iterationTerminationConditions(List<IterationTerminationCondition> conditions) {
      iterationTerminationConditions = new ArrayList<>(conditions);
      return this;
    }

    public Builder<T> saveLastModel(boolean saveLastModel) {
      this.saveLastModel = saveLastModel;
      return this;
    }

    public Builder<T> evaluateEveryNEpochs(int everyNEpochs) {
      this.evaluateEveryNEpochs = everyNEpochs;
      return this;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    public Builder<T> scoreCalculator(ScoreCalculator scoreCalculator) {
      this.scoreCalculator = scoreCalculator;
      return this;
    }

    public EarlyStoppingConfiguration<T> build() {
      return new EarlyStoppingConfiguration<>(this);
    }
  }
}
