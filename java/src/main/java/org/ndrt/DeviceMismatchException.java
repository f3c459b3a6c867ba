package org.ndrt;

/** Tensors not on the calling thread's current device (NDRT_ERR_DEVICE_MISMATCH, 204); move data explicitly with Tensor.to(Device). */
public class DeviceMismatchException extends NdrtException {
  private static final long serialVersionUID = 1L;

  /**
   * @param status the ndrt_status (204)
   * @param message the runtime's message
   */
  public DeviceMismatchException(int status, String message) {
    super(status, message);
  }
}
