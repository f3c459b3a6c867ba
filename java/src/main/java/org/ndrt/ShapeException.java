package org.ndrt;

/** Shapes that do not fit the op (NDRT_ERR_SHAPE_MISMATCH, 202). */
public class ShapeException extends NdrtException {
  private static final long serialVersionUID = 1L;

  /**
   * @param status the ndrt_status (202)
   * @param message the runtime's message
   */
  public ShapeException(int status, String message) {
    super(status, message);
  }
}
