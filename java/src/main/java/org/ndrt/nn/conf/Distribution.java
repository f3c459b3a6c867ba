package org.ndrt.nn.conf;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A distribution to draw a layer's weights from ({@link WeightInit#DISTRIBUTION}), as Deeplearning4j's
 * conf.distribution classes: uniform, normal, truncated normal (at 2 standard deviations, as ND4J's),
 * log-normal, binomial, orthogonal and constant. Drawn by ndrt's Philox generator from the network's
 * seed. Immutable.
 */
public final class Distribution {
  /** The kinds, each with its two parameters a and b. */
  public enum Kind {
    /** a = lower, b = upper. */
    UNIFORM,
    /** a = mean, b = std. */
    NORMAL,
    /** a = mean, b = std (of the normal before truncation at mean +- 2 std). */
    TRUNCATED_NORMAL,
    /** exp(Normal(a, b)): a = mean, b = std of the logarithm. */
    LOG_NORMAL,
    /** The number of successes in a = n trials of probability b. */
    BINOMIAL,
    /** An orthogonal matrix (weights flattened to [shape[0], rest]) times a = gain. */
    ORTHOGONAL,
    /** a everywhere. */
    CONSTANT
  }

  public final Kind kind;
  public final double a;
  public final double b;

  private Distribution(Kind kind, double a, double b) {
    this.kind = kind;
    this.a = a;
    this.b = b;
  }

  public static Distribution uniform(double lower, double upper) {
    if (!(lower <= upper)) {
      throw new IllegalArgumentException("uniform distribution: lower " + lower + " > upper " + upper);
    }
    return new Distribution(Kind.UNIFORM, lower, upper);
  }

  public static Distribution normal(double mean, double std) {
    return new Distribution(Kind.NORMAL, mean, nonNegative(std));
  }

  public static Distribution truncatedNormal(double mean, double std) {
    return new Distribution(Kind.TRUNCATED_NORMAL, mean, nonNegative(std));
  }

  public static Distribution logNormal(double mean, double std) {
    return new Distribution(Kind.LOG_NORMAL, mean, nonNegative(std));
  }

  public static Distribution binomial(int trials, double p) {
    if (trials < 0 || !(p >= 0 && p <= 1)) {
      throw new IllegalArgumentException("binomial distribution: needs trials >= 0 and 0 <= p <= 1, got " + trials
          + ", " + p);
    }
    return new Distribution(Kind.BINOMIAL, trials, p);
  }

  public static Distribution orthogonal(double gain) {
    return new Distribution(Kind.ORTHOGONAL, gain, 0);
  }

  public static Distribution constant(double value) {
    return new Distribution(Kind.CONSTANT, value, 0);
  }

  private static double nonNegative(double std) {
    if (!(std >= 0)) {
      throw new IllegalArgumentException("standard deviation must be >= 0, got " + std);
    }
    return std;
  }

  public Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("kind", kind.name());
    m.put("a", a);
    m.put("b", b);
    return m;
  }

  public static Distribution fromJson(Map<String, Object> m) {
    return new Distribution(Kind.valueOf(Json.str(m, "kind")), Json.num(m, "a"), Json.num(m, "b"));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Distribution && ((Distribution) o).toJson().equals(toJson());
  }

  @Override
  public int hashCode() {
    return toJson().hashCode();
  }

  @Override
  public String toString() {
    return kind + "(" + a + ", " + b + ")";
  }
}
