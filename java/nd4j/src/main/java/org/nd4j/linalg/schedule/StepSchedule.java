package org.nd4j.linalg.schedule;

import java.util.Objects;

/** initialValue * decayRate^floor(i / step), i the iteration or the epoch ({@link ScheduleType}), as ND4J's StepSchedule. */
public class StepSchedule implements ISchedule {
  private static final long serialVersionUID = 1L;
  private final ScheduleType scheduleType;
  private final double initialValue;
  private final double decayRate;
  private final double step;

  public StepSchedule(ScheduleType scheduleType, double initialValue, double decayRate, double step) {
    this.scheduleType = Objects.requireNonNull(scheduleType, "scheduleType");
    this.initialValue = initialValue;
    this.decayRate = decayRate;
    this.step = step;
  }

  @Override
  public double valueAt(int iteration, int epoch) {
    int i = scheduleType == ScheduleType.ITERATION ? iteration : epoch;
    return initialValue * Math.pow(decayRate, Math.floor(i / step));
  }

  @Override
  public ISchedule clone() {
    return new StepSchedule(scheduleType, initialValue, decayRate, step);
  }

  public ScheduleType getScheduleType() {
    return scheduleType;
  }

  public double getInitialValue() {
    return initialValue;
  }

  public double getDecayRate() {
    return decayRate;
  }

  public double getStep() {
    return step;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StepSchedule && o.toString().equals(toString());
  }

  @Override
  public int hashCode() {
    return toString().hashCode();
  }

  @Override
  public String toString() {
    return "StepSchedule(scheduleType=" + scheduleType + ", initialValue=" + initialValue + ", decayRate=" + decayRate + ", step=" + step + ")";
  }
}
