package org.nd4j.linalg.schedule;

import java.io.Serializable;

/** A hyper-parameter's value as a function of the iteration or epoch, as ND4J's ISchedule. */
public interface ISchedule extends Serializable, Cloneable {
  double valueAt(int iteration, int epoch);

  ISchedule clone();
}
