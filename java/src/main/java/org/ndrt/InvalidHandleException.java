package org.ndrt;

/** A zero, stale, released or invented tensor handle, or a closed Tensor (NDRT_ERR_INVALID_HANDLE, 200). */
public class InvalidHandleException extends NdrtException {
  private static final long serialVersionUID = 1L;

  /**
   * @param status the ndrt_status (200)
   * @param message the runtime's message
   */
  public InvalidHandleException(int status, String message) {
    super(status, message);
  }
}
