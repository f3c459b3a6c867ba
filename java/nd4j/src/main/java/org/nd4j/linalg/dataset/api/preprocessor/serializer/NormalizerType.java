package org.nd4j.linalg.dataset.api.preprocessor.serializer;

/** ND4J's normalizer kinds (what its NormalizerSerializer writes). */
public enum NormalizerType {
  STANDARDIZE,
  MIN_MAX,
  IMAGE_MIN_MAX,
  IMAGE_VGG16,
  MULTI_STANDARDIZE,
  MULTI_MIN_MAX,
  MULTI_HYBRID,
  CUSTOM
}
