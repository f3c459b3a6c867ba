package org.nd4j.linalg.schedule;

import java.util.Objects;

/** initialValue * gamma^i, i the iteration or the epoch ({@link ScheduleType}), as ND4J's ExponentialSchedule. */
public class ExponentialSchedule implements ISchedule {
  private static final long serialVersionUID = 1L;
  private final ScheduleType scheduleType;
  private final double initialValue;
  private final double gamma;

  public ExponentialSchedule(ScheduleType scheduleType, double initialValue, double gamma) {
    this.scheduleType = Objects.requireNonNull(scheduleType, "scheduleType");
    this.initialValue = initialValue;
    this.gamma = gamma;
  }

  @Override
  public double valueAt(int iteration, int epoch) {
    int i = scheduleType == ScheduleType.ITERATION ? iteration : epoch;
    return initialValue * Math.pow(gamma, i);
  }

  @Override
  public ISchedule clone() {
    return new ExponentialSchedule(scheduleType, initialValue, gamma);
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

  @Override
  public boolean equals(Object o) {
    return o instanceof ExponentialSchedule && o.toString().equals(toString());
  }

  @Override
  public int hashCode() {
    return toString().hashCode();
  }

  @Override
  public String toString() {
    return "ExponentialSchedule(scheduleType=" + scheduleType + ", initialValue=" + initialValue + ", gamma=" + gamma + ")";
  }
}
