package org.deeplearning4j.optimize.api;

/** Deeplearning4j's older listener base (iterationDone only). */
public abstract class IterationListener extends BaseTrainingListener {}
