package org.eclipse.deeplearning4j.resources.utils;

/**
 * The EMNIST splits (Deeplearning4j 1.0.0-M2.1's EMnistSet, which EmnistDataSetIterator takes; older
 * Deeplearning4j had EmnistDataSetIterator.Set instead). COMPLETE is the "byclass" split, MERGE
 * "bymerge".
 */
public enum EMnistSet {
  COMPLETE,
  MERGE,
  BALANCED,
  LETTERS,
  DIGITS,
  MNIST
}
