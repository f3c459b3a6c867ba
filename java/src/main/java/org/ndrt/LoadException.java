package org.ndrt;

/** A backend library or file could not be loaded (NDRT_ERR_LOAD, 400). */
public class LoadException extends NdrtException {
  private static final long serialVersionUID = 1L;

  /**
   * @param status the ndrt_status (400)
   * @param message the runtime's message
   */
  public LoadException(int status, String message) {
    super(status, message);
  }
}
