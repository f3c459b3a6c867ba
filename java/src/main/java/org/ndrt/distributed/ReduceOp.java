package org.ndrt.distributed;

import org.ndrt.capi.NdrtCConstants;

/** How a reducing collective combines the ranks' values (the C ABI's {@code NDRT_REDUCE_*}). */
public enum ReduceOp {
  /** The sum over the ranks. */
  SUM(NdrtCConstants.NDRT_REDUCE_SUM),
  /** The sum divided by the group size (float dtypes only). */
  MEAN(NdrtCConstants.NDRT_REDUCE_MEAN),
  /** The largest value (on bool: any). */
  MAX(NdrtCConstants.NDRT_REDUCE_MAX),
  /** The smallest value (on bool: all). */
  MIN(NdrtCConstants.NDRT_REDUCE_MIN);

  private final int code;

  ReduceOp(int code) {
    this.code = code;
  }

  /** The {@code NDRT_REDUCE_*} value. */
  public int code() {
    return code;
  }
}
