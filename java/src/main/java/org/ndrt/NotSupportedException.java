package org.ndrt;

/** No kernel for this op/backend/dtype (NDRT_ERR_NOT_SUPPORTED, 300), or a feature or version this build does not provide (NDRT_ERR_NOT_CONFIGURED, 301). */
public class NotSupportedException extends NdrtException {
  private static final long serialVersionUID = 1L;

  /**
   * @param status the ndrt_status (300, 301)
   * @param message the runtime's message
   */
  public NotSupportedException(int status, String message) {
    super(status, message);
  }
}
