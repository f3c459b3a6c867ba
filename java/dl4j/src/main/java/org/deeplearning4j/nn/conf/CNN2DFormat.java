package org.deeplearning4j.nn.conf;

/** Image layout: NCHW (what org.ndrt.nn takes); NHWC is refused at initialisation. */
public enum CNN2DFormat {
  NCHW, NHWC
}
