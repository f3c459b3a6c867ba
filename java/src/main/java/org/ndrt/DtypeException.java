package org.ndrt;

/** dtypes that do not fit the op (NDRT_ERR_DTYPE_MISMATCH, 203); ndrt never promotes implicitly: cast explicitly. */
public class DtypeException extends NdrtException {
  private static final long serialVersionUID = 1L;

  /**
   * @param status the ndrt_status (203)
   * @param message the runtime's message
   */
  public DtypeException(int status, String message) {
    super(status, message);
  }
}
