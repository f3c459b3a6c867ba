package org.ndrt;

/** A driver or vendor library (CUDA, cuDNN, BLAS) failed (NDRT_ERR_BACKEND, 101). */
public class BackendException extends NdrtException {
  private static final long serialVersionUID = 1L;

  /**
   * @param status the ndrt_status (101)
   * @param message the runtime's message
   */
  public BackendException(int status, String message) {
    super(status, message);
  }
}
