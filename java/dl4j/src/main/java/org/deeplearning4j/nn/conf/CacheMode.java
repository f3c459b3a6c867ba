package org.deeplearning4j.nn.conf;

/** Accepted and ignored: ndrt caches no activations between passes. */
public enum CacheMode {
  NONE, HOST, DEVICE
}
