package org.nd4j.common.function;

/** ND4J's single-method function type. */
@FunctionalInterface
public interface Function<T, R> {
  R apply(T t);
}
