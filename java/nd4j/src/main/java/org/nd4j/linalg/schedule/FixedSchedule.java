package org.nd4j.linalg.schedule;

/** The same value at every iteration and epoch, as ND4J's FixedSchedule. */
public class FixedSchedule implements ISchedule {
  private static final long serialVersionUID = 1L;
  private final double value;

  public FixedSchedule(double value) {
    this.value = value;
  }

  @Override
  public double valueAt(int iteration, int epoch) {
    return value;
  }

  @Override
  public ISchedule clone() {
    return new FixedSchedule(value);
  }

  public double getValue() {
    return value;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FixedSchedule && ((FixedSchedule) o).value == value;
  }

  @Override
  public int hashCode() {
    return Double.hashCode(value);
  }

  @Override
  public String toString() {
    return "FixedSchedule(value=" + value + ")";
  }
}
