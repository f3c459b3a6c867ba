package org.ndrt.dl4j;

/**
 * A Deeplearning4j-named object that is a thin name over an org.ndrt object (early-stopping conditions,
 * score calculators, savers): the drop-in's trainers hand the org.ndrt object to org.ndrt's code
 * instead of wrapping it again, so there is one implementation of the logic.
 *
 * @param <T> the org.ndrt type
 */
public interface NdrtBacked<T> {
  /** @return the org.ndrt object this names */
  T ndrt();
}
