package org.nd4j.linalg.cpu.nativecpu;

import org.nd4j.linalg.api.ndarray.BaseNDArray;
import org.ndrt.Tensor;
import org.ndrt.nd4j.ArrayCore;

/** ndrt's one INDArray class (ND4J's CPU backend names it so): a view of an {@link org.ndrt.Tensor}. */
public final class NDArray extends BaseNDArray {
  private static final long serialVersionUID = 1L;

  /**
   * @param t the tensor this array is (it becomes this array's to close)
   * @param viewOf the array whose storage {@code t} views, or null for a new array
   * @param rootOrder 'c' or 'f': the order the storage was created in
   */
  public NDArray(Tensor t, ArrayCore viewOf, char rootOrder) {
    super(t, viewOf, rootOrder);
  }

  /** A new array owning {@code t}. */
  public NDArray(Tensor t) {
    super(t, null, 'c');
  }
}
