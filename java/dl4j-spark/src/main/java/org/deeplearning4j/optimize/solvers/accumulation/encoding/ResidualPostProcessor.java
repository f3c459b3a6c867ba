package org.deeplearning4j.optimize.solvers.accumulation.encoding;

import java.io.Serializable;

/** What Deeplearning4j does with the residual its threshold encoding leaves; nothing in ndrt (exact gradients). */
public interface ResidualPostProcessor extends Serializable {}
