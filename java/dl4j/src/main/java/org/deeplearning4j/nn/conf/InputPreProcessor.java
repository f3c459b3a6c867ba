package org.deeplearning4j.nn.conf;

import java.io.Serializable;

/**
 * Deeplearning4j's explicit reshaping between layers. org.ndrt.nn inserts the reshapes it needs itself
 * (from the input type); an explicit preprocessor is configuration only and is refused when the network
 * is initialised.
 */
public interface InputPreProcessor extends Serializable {}
