package org.ndrt.earlystopping;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Stops once the training run has lasted at least a given time, measured from {@link #initialize()}
 * (the start of {@link EarlyStoppingTrainer#fit()}) and checked after every minibatch.
 */
public final class MaxTimeIterationTerminationCondition implements IterationTerminationCondition {
  private final long maxTime;
  private final TimeUnit unit;
  private final long maxNanos;
  private final LongSupplier nanoClock;
  private long startNanos;
  private boolean started;

  /**
   * @param maxTime the longest training time, more than 0
   * @param unit its unit
   */
  public MaxTimeIterationTerminationCondition(long maxTime, TimeUnit unit) {
    this(maxTime, unit, System::nanoTime);
  }

  /**
   * With a clock of one's own (tests script time with it).
   *
   * @param maxTime the longest training time, more than 0
   * @param unit its unit
   * @param nanoClock the time in nanoseconds, like {@link System#nanoTime()} (only differences count)
   * @throws IllegalArgumentException if {@code maxTime <= 0} or {@code unit} or {@code nanoClock} is null
   */
  public MaxTimeIterationTerminationCondition(long maxTime, TimeUnit unit, LongSupplier nanoClock) {
    if (maxTime <= 0 || unit == null || nanoClock == null) {
      throw new IllegalArgumentException(
          "MaxTimeIterationTerminationCondition: needs maxTime > 0 (got " + maxTime + "), a unit and a clock");
    }
    this.maxTime = maxTime;
    this.unit = unit;
    this.maxNanos = unit.toNanos(maxTime); // saturates at Long.MAX_VALUE
    this.nanoClock = nanoClock;
  }

  @Override
  public void initialize() {
    startNanos = nanoClock.getAsLong();
    started = true;
  }

  /** @throws IllegalStateException if {@link #initialize()} was never called */
  @Override
  public boolean terminate(double lastMinibatchScore) {
    if (!started) {
      throw new IllegalStateException("MaxTimeIterationTerminationCondition: initialize() was not called");
    }
    return nanoClock.getAsLong() - startNanos >= maxNanos;
  }

  @Override
  public String toString() {
    return "MaxTimeIterationTerminationCondition(" + maxTime + " " + unit + ")";
  }
}
