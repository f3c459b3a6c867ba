package org.nd4j.linalg.schedule;

import java.util.Objects;

/** initialValue / (1 + exp(-gamma (i - stepSize))), i the iteration or the epoch ({@link ScheduleType}), as ND4J's SigmoidSchedule. */
public class SigmoidSchedule implements ISchedule {
  private static final long serialVersionUID = 1L;
  private final ScheduleType scheduleType;
  private final double initialValue;
  private final double gamma;
  private final int stepSize;

  public SigmoidSchedule(ScheduleType scheduleType, double initialValue, double gamma, int stepSize) {
    this.scheduleType = Objects.requireNonNull(scheduleType, "scheduleType");
    this.initialValue = initialValue;
    this.gamma = gamma;
    this.stepSize = stepSize;
  }

  @Override
  public double valueAt(int iteration, int epoch) {
    int i = scheduleType == ScheduleType.ITERATION ? iteration : epoch;
    return initialValue / (1.0 + Math.exp(-gamma * (i - stepSize)));
  }

  @Override
  public ISchedule clone() {
    return new SigmoidSchedule(scheduleType, initialValue, gamma, stepSize);
  }

  public ScheduleType getScheduleType() {
    return scheduleType;
  }

  public double getInitialValue() {
    return initialValue;
  }

  public double getGamma() {
    return gamma;
  }

  public int getStepSize() {
    return stepSize;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SigmoidSchedule && o.toString().equals(toString());
  }

  @Override
  public int hashCode() {
    return toString().hashCode();
  }

  @Override
  public String toString() {
    return "SigmoidSchedule(scheduleType=" + scheduleType + ", initialValue=" + initialValue + ", gamma=" + gamma + ", stepSize=" + stepSize + ")";
  }
}
