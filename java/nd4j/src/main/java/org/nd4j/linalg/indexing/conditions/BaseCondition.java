package org.nd4j.linalg.indexing.conditions;

/** A condition given by its mode, a value and an epsilon (ND4J's built-in conditions). */
public class BaseCondition implements Condition {
  protected final Conditions.ConditionMode mode;
  protected double value;
  protected final double eps;

  public BaseCondition(Conditions.ConditionMode mode, double value, double eps) {
    this.mode = mode;
    this.value = value;
    this.eps = eps;
  }

  @Override
  public void setValue(Number value) {
    this.value = value.doubleValue();
  }

  @Override
  public Conditions.ConditionMode conditionType() {
    return mode;
  }

  @Override
  public double getValue() {
    return value;
  }

  @Override
  public double epsThreshold() {
    return eps;
  }

  @Override
  public Boolean apply(Number input) {
    double x = input.doubleValue();
    switch (mode) {
      case EPSILON_EQUALS: return Math.abs(x - value) <= eps;
      case EPSILON_NOT_EQUALS: return Math.abs(x - value) > eps;
      case LESS_THAN: return x < value;
      case GREATER_THAN: return x > value;
      case LESS_THAN_OR_EQUAL: return x <= value;
      case GREATER_THAN_OR_EQUAL: return x >= value;
      case ABS_LESS_THAN: return Math.abs(x) < value;
      case ABS_GREATER_THAN: return Math.abs(x) > value;
      case ABS_LESS_THAN_OR_EQUAL: return Math.abs(x) <= value;
      case ABS_GREATER_OR_EQUAL: return Math.abs(x) >= value;
      case ABS_EQUALS: return Math.abs(x) == value;
      case NOT_EQUALS: return x != value;
      case IS_INFINITE: return Double.isInfinite(x);
      case IS_NAN: return Double.isNaN(x);
      case IS_FINITE: return Double.isFinite(x);
      case NOT_FINITE: return !Double.isFinite(x);
      default: throw new UnsupportedOperationException("ndrt's ND4J drop-in does not implement condition " + mode);
    }
  }

  @Override
  public String toString() {
    return mode + "(" + value + ")";
  }
}
