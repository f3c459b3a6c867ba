package org.nd4j.linalg.schedule;

import java.util.Objects;

/** 0 from maxIter on, else initialValue * (1 + i / maxIter)^power (ND4J's formula, sign of power as given), i the iteration or the epoch ({@link ScheduleType}), as ND4J's PolySchedule. */
public class PolySchedule implements ISchedule {
  private static final long serialVersionUID = 1L;
  private final ScheduleType scheduleType;
  private final double initialValue;
  private final double power;
  private final int maxIter;

  public PolySchedule(ScheduleType scheduleType, double initialValue, double power, int maxIter) {
    this.scheduleType = Objects.requireNonNull(scheduleType, "scheduleType");
    this.initialValue = initialValue;
    this.power = power;
    this.maxIter = maxIter;
  }

  @Override
  public double valueAt(int iteration, int epoch) {
    int i = scheduleType == ScheduleType.ITERATION ? iteration : epoch;
    return i >= maxIter ? 0 : initialValue * Math.pow(1 + i / (double) maxIter, power);
  }

  @Override
  public ISchedule clone() {
    return new PolySchedule(scheduleType, initialValue, power, maxIter);
  }

  public ScheduleType getScheduleType() {
    return scheduleType;
  }

  public double getInitialValue() {
    return initialValue;
  }

  public double getPower() {
    return power;
  }

  public int getMaxIter() {
    return maxIter;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PolySchedule && o.toString().equals(toString());
  }

  @Override
  public int hashCode() {
    return toString().hashCode();
  }

  @Override
  public String toString() {
    return "PolySchedule(scheduleType=" + scheduleType + ", initialValue=" + initialValue + ", power=" + power + ", maxIter=" + maxIter + ")";
  }
}
