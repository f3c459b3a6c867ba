package org.deeplearning4j.optimize.solvers.accumulation.encoding;

import java.io.Serializable;

/**
 * How Deeplearning4j's gradient sharing picks the threshold of its quantised updates. ndrt shares exact
 * averaged gradients (no threshold encoding), so a SharedTrainingMaster keeps this only to report it.
 */
public interface ThresholdAlgorithm extends Serializable {}
