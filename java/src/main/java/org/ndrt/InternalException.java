package org.ndrt;

/** A bug in ndrt (NDRT_ERR_INTERNAL, 500): please report it with the message. */
public class InternalException extends NdrtException {
  private static final long serialVersionUID = 1L;

  /**
   * @param status the ndrt_status (500)
   * @param message the runtime's message
   */
  public InternalException(int status, String message) {
    super(status, message);
  }
}
