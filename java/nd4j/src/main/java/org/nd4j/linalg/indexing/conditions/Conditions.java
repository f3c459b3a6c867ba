package org.nd4j.linalg.indexing.conditions;

/** ND4J's condition factory. */
public final class Conditions {
  private Conditions() {}

  /** The kinds of condition, with ND4J's numbering. */
  public enum ConditionMode {
    EPSILON_EQUALS(0), EPSILON_NOT_EQUALS(1), LESS_THAN(2), GREATER_THAN(3), LESS_THAN_OR_EQUAL(4),
    GREATER_THAN_OR_EQUAL(5), ABS_LESS_THAN(6), ABS_GREATER_THAN(7), IS_INFINITE(8), IS_NAN(9), ABS_EQUALS(10),
    NOT_EQUALS(11), ABS_GREATER_OR_EQUAL(12), ABS_LESS_THAN_OR_EQUAL(13), IS_FINITE(14), NOT_FINITE(15),
    AGGREGATE(-1);

    public final int index;

    ConditionMode(int index) {
      this.index = index;
    }

    public static ConditionMode fromNumber(int n) {
      for (ConditionMode m : values()) {
        if (m.index == n) {
          return m;
        }
      }
      throw new IllegalArgumentException("No condition mode numbered " + n);
    }
  }

  private static final double EPS = 1e-5;

  private static Condition of(ConditionMode m, Number v) {
    return new BaseCondition(m, v.doubleValue(), EPS);
  }

  public static Condition isInfinite() { return of(ConditionMode.IS_INFINITE, 0); }
  public static Condition isNan() { return of(ConditionMode.IS_NAN, 0); }
  public static Condition isFinite() { return of(ConditionMode.IS_FINITE, 0); }
  public static Condition notFinite() { return of(ConditionMode.NOT_FINITE, 0); }
  public static Condition epsNotEquals() { return epsNotEquals(0); }
  public static Condition epsNotEquals(Number v) { return of(ConditionMode.EPSILON_NOT_EQUALS, v); }
  public static Condition epsEquals() { return epsEquals(0); }
  public static Condition epsEquals(Number v) { return of(ConditionMode.EPSILON_EQUALS, v); }

  public static Condition epsEquals(Number v, Number eps) {
    return new BaseCondition(ConditionMode.EPSILON_EQUALS, v.doubleValue(), eps.doubleValue());
  }

  public static Condition equals() { return equals(0); }
  public static Condition equals(Number v) { return of(ConditionMode.EPSILON_EQUALS, v); }
  public static Condition notEquals() { return notEquals(0); }
  public static Condition notEquals(Number v) { return of(ConditionMode.NOT_EQUALS, v); }
  public static Condition greaterThan() { return greaterThan(0); }
  public static Condition greaterThan(Number v) { return of(ConditionMode.GREATER_THAN, v); }
  public static Condition lessThan() { return lessThan(0); }
  public static Condition lessThan(Number v) { return of(ConditionMode.LESS_THAN, v); }
  public static Condition lessThanOrEqual() { return lessThanOrEqual(0); }
  public static Condition lessThanOrEqual(Number v) { return of(ConditionMode.LESS_THAN_OR_EQUAL, v); }
  public static Condition greaterThanOrEqual() { return greaterThanOrEqual(0); }
  public static Condition greaterThanOrEqual(Number v) { return of(ConditionMode.GREATER_THAN_OR_EQUAL, v); }
  public static Condition absGreaterThanOrEqual() { return absGreaterThanOrEqual(0); }
  public static Condition absGreaterThanOrEqual(Number v) { return of(ConditionMode.ABS_GREATER_OR_EQUAL, v); }
  public static Condition absLessThanOrEqual() { return absLessThanOrEqual(0); }
  public static Condition absLessThanOrEqual(Number v) { return of(ConditionMode.ABS_LESS_THAN_OR_EQUAL, v); }
  public static Condition absGreaterThan() { return absGreaterThan(0); }
  public static Condition absGreaterThan(Number v) { return of(ConditionMode.ABS_GREATER_THAN, v); }
  public static Condition absLessThan() { return absLessThan(0); }
  public static Condition absLessThan(Number v) { return of(ConditionMode.ABS_LESS_THAN, v); }
  public static Condition absEquals() { return absEquals(0); }
  public static Condition absEquals(double v) { return of(ConditionMode.ABS_EQUALS, v); }

  public static Condition fromInt(int mode) {
    return fromInt(mode, 0.0);
  }

  public static Condition fromInt(int mode, Double value) {
    return of(ConditionMode.fromNumber(mode), value == null ? 0.0 : value);
  }
}
