package org.nd4j.linalg.schedule;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Piecewise constant values given at iterations or epochs, as ND4J's MapSchedule: at i, the value of
 * the largest key not above i. Key 0 must be given.
 */
public class MapSchedule implements ISchedule {
  private static final long serialVersionUID = 1L;
  private final ScheduleType scheduleType;
  private final TreeMap<Integer, Double> values;

  public MapSchedule(ScheduleType scheduleType, Map<Integer, Double> values) {
    Objects.requireNonNull(scheduleType, "scheduleType");
    Objects.requireNonNull(values, "values");
    if (!values.containsKey(0)) {
      throw new IllegalArgumentException("Invalid set of values: must contain initial value (position 0)");
    }
    this.scheduleType = scheduleType;
    this.values = new TreeMap<>(values);
  }

  @Override
  public double valueAt(int iteration, int epoch) {
    int i = scheduleType == ScheduleType.ITERATION ? iteration : epoch;
    Map.Entry<Integer, Double> e = values.floorEntry(i);
    return e == null ? values.firstEntry().getValue() : e.getValue();
  }

  @Override
  public ISchedule clone() {
    return new MapSchedule(scheduleType, values);
  }

  public ScheduleType getScheduleType() {
    return scheduleType;
  }

  public Map<Integer, Double> getValues() {
    return new HashMap<>(values);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MapSchedule && ((MapSchedule) o).scheduleType == scheduleType
        && ((MapSchedule) o).values.equals(values);
  }

  @Override
  public int hashCode() {
    return values.hashCode() * 31 + scheduleType.hashCode();
  }

  @Override
  public String toString() {
    return "MapSchedule(scheduleType=" + scheduleType + ", values=" + new HashMap<>(values) + ")";
  }

  /** ND4J's builder: {@code new MapSchedule.Builder(ScheduleType.EPOCH).add(0, 0.1).add(10, 0.01).build()}. */
  public static class Builder {
    private final ScheduleType scheduleType;
    private final Map<Integer, Double> values = new HashMap<>();

    public Builder(ScheduleType scheduleType) {
      this.scheduleType = scheduleType;
    }

    public Builder add(int position, double value) {
      values.put(position, value);
      return this;
    }

    public MapSchedule build() {
      return new MapSchedule(scheduleType, values);
    }
  }
}
