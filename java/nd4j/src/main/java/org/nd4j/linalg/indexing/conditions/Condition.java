package org.nd4j.linalg.indexing.conditions;

import org.nd4j.common.function.Function;

/**
 * A test on numbers ({@link #apply} on one value in Java; on arrays the runtime evaluates it from
 * {@link #conditionType()} and {@link #getValue()}, see {@code org.ndrt.nd4j.ConditionMasks}).
 */
public interface Condition extends Function<Number, Boolean> {
  default void setValue(Number value) {
    throw new UnsupportedOperationException("ndrt's ND4J drop-in does not implement Condition.setValue for "
        + getClass().getSimpleName());
  }

  Conditions.ConditionMode conditionType();

  double getValue();

  double epsThreshold();

  @Override
  Boolean apply(Number input);
}
