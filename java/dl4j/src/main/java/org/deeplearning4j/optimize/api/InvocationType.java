package org.deeplearning4j.optimize.api;

/** When a listener such as EvaluativeListener acts. */
public enum InvocationType { EPOCH_START, EPOCH_END, ITERATION_END }
