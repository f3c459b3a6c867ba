package org.nd4j.linalg.schedule;

/** Whether a schedule counts iterations or epochs. */
public enum ScheduleType {
  ITERATION,
  EPOCH
}
