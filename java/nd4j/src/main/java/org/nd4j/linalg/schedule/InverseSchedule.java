package org.nd4j.linalg.schedule;

import java.util.Objects;

/** initialValue / (1 + gamma i)^power, i the iteration or the epoch ({@link ScheduleType}), as ND4J's InverseSchedule. */
public class InverseSchedule implements ISchedule {
  private static final long serialVersionUID = 1L;
  private final ScheduleType scheduleType;
  private final double initialValue;
  private final double gamma;
  private final double power;

  public InverseSchedule(ScheduleType scheduleType, double initialValue, double gamma, double power) {
    this.scheduleType = Objects.requireNonNull(scheduleType, "scheduleType");
    this.initialValue = initialValue;
    this.gamma = gamma;
    this.power = power;
  }

  @Override
  public double valueAt(int iteration, int epoch) {
    int i = scheduleType == ScheduleType.ITERATION ? iteration : epoch;
    return initialValue / Math.pow(1 + gamma * i, power);
  }

  @Override
  public ISchedule clone() {
    return new InverseSchedule(scheduleType, initialValue, gamma, power);
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

  public double getPower() {
    return power;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof InverseSchedule && o.toString().equals(toString());
  }

  @Override
  public int hashCode() {
    return toString().hashCode();
  }

  @Override
  public String toString() {
    return "InverseSchedule(scheduleType=" + scheduleType + ", initialValue=" + initialValue + ", gamma=" + gamma + ", power=" + power + ")";
  }
}
