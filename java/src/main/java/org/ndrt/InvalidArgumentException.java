package org.ndrt;

/** A bad argument: null pointer, bad value or attribute, wrong arity (NDRT_ERR_INVALID_ARGUMENT, 201), or an unknown op (NDRT_ERR_UNKNOWN_OP, 205). */
public class InvalidArgumentException extends NdrtException {
  private static final long serialVersionUID = 1L;

  /**
   * @param status the ndrt_status (201, 205)
   * @param message the runtime's message
   */
  public InvalidArgumentException(int status, String message) {
    super(status, message);
  }
}
