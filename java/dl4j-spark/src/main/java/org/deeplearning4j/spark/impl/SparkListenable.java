package org.deeplearning4j.spark.impl;

import java.util.Arrays;
import java.util.Collection;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.deeplearning4j.spark.api.TrainingMaster;

/** The listeners of a Spark network (Deeplearning4j's): handed to its training master. */
public class SparkListenable {
  protected TrainingMaster<?, ?> trainingMaster;

  /** Listeners of the driver's network during fit, called once per averaging round (or step). */
  public void setListeners(Collection<TrainingListener> listeners) {
    trainingMaster.setListeners(listeners);
  }

  public void setListeners(TrainingListener... listeners) {
    setListeners(Arrays.asList(listeners));
  }
}
