package org.ndrt;

/** The runtime could not allocate memory (NDRT_ERR_OUT_OF_MEMORY, 100); the message says how much is in use, cached and free. */
public class OutOfMemoryException extends NdrtException {
  private static final long serialVersionUID = 1L;

  /**
   * @param status the ndrt_status (100)
   * @param message the runtime's message
   */
  public OutOfMemoryException(int status, String message) {
    super(status, message);
  }
}
