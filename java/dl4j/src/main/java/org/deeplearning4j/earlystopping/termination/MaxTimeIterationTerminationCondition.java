package org.deeplearning4j.earlystopping.termination;

import org.ndrt.dl4j.NdrtBacked;

/** Deeplearning4j's MaxTimeIterationTerminationCondition: org.ndrt.earlystopping's, which holds the logic (one implementation). */
public class MaxTimeIterationTerminationCondition implements IterationTerminationCondition, NdrtBacked<org.ndrt.earlystopping.IterationTerminationCondition> {
  private final org.ndrt.earlystopping.MaxTimeIterationTerminationCondition ndrt;

  public MaxTimeIterationTerminationCondition(long maxTimeAmount, java.util.concurrent.TimeUnit maxTimeUnit) {
    ndrt = new org.ndrt.earlystopping.MaxTimeIterationTerminationCondition(maxTimeAmount, maxTimeUnit);
  }

  @Override
  public void initialize() {
    ndrt.initialize();
  }

  @Override
  public boolean terminate(double lastMiniBatchScore) {
    return ndrt.terminate(lastMiniBatchScore);
  }

  /** ndrt: the org.ndrt.earlystopping condition this names (the trainer runs it directly). */
  @Override
  public org.ndrt.earlystopping.IterationTerminationCondition ndrt() {
    return ndrt;
  }

  @Override
  public String toString() {
    return ndrt.toString();
  }
}
