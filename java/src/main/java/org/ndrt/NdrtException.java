package org.ndrt;

/**
 * A call into ndrt failed: the Java form of a non-OK {@code ndrt_status}. It carries the status code
 * and, as its message, the runtime's own description of what was wrong ({@code ndrt_last_error()}).
 *
 * <p>One subclass per status group (unchecked, like the JDK's own argument exceptions):
 *
 * <table>
 *   <caption>Status codes and exception classes</caption>
 *   <tr><th>status</th><th>class</th></tr>
 *   <tr><td>100 out of memory</td><td>{@link OutOfMemoryException}</td></tr>
 *   <tr><td>101 backend (CUDA, cuDNN, BLAS)</td><td>{@link BackendException}</td></tr>
 *   <tr><td>200 invalid handle</td><td>{@link InvalidHandleException}</td></tr>
 *   <tr><td>201 invalid argument, 205 unknown op</td><td>{@link InvalidArgumentException}</td></tr>
 *   <tr><td>202 shape mismatch</td><td>{@link ShapeException}</td></tr>
 *   <tr><td>203 dtype mismatch</td><td>{@link DtypeException}</td></tr>
 *   <tr><td>204 device mismatch</td><td>{@link DeviceMismatchException}</td></tr>
 *   <tr><td>300 not supported, 301 not configured</td><td>{@link NotSupportedException}</td></tr>
 *   <tr><td>400 load</td><td>{@link LoadException}</td></tr>
 *   <tr><td>500 internal</td><td>{@link InternalException}</td></tr>
 * </table>
 * A status this binding does not know yet gives a plain {@code NdrtException}.
 */
public class NdrtException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;

  /**
   * @param status the ndrt_status
   * @param message the runtime's message
   */
  public NdrtException(int status, String message) {
    super(message);
    this.status = status;
  }

  /** The {@code ndrt_status} value, e.g. 202 for a shape mismatch. */
  public int status() {
    return status;
  }

  /** The status's symbolic name, e.g. {@code NDRT_ERR_SHAPE_MISMATCH}. */
  public String statusName() {
    return statusName(status);
  }

  @Override
  public String toString() {
    return getClass().getName() + " [" + statusName() + "]: " + getMessage();
  }

  /**
   * The exception for a status (called by the JNI layer with {@code ndrt_last_error()}).
   *
   * @param status a non-OK ndrt_status
   * @param message the runtime's message
   * @return the subclass instance for the status
   */
  public static NdrtException of(int status, String message) {
    switch (status) {
      case 100: return new OutOfMemoryException(status, message);
      case 101: return new BackendException(status, message);
      case 200: return new InvalidHandleException(status, message);
      case 201: case 205: return new InvalidArgumentException(status, message);
      case 202: return new ShapeException(status, message);
      case 203: return new DtypeException(status, message);
      case 204: return new DeviceMismatchException(status, message);
      case 300: case 301: return new NotSupportedException(status, message);
      case 400: return new LoadException(status, message);
      case 500: return new InternalException(status, message);
      default: return new NdrtException(status, message);
    }
  }

  /** Symbolic name of a status (the same text as {@code ndrt_status_name}, without a native call). */
  public static String statusName(int status) {
    switch (status) {
      case 0: return "NDRT_OK";
      case 100: return "NDRT_ERR_OUT_OF_MEMORY";
      case 101: return "NDRT_ERR_BACKEND";
      case 200: return "NDRT_ERR_INVALID_HANDLE";
      case 201: return "NDRT_ERR_INVALID_ARGUMENT";
      case 202: return "NDRT_ERR_SHAPE_MISMATCH";
      case 203: return "NDRT_ERR_DTYPE_MISMATCH";
      case 204: return "NDRT_ERR_DEVICE_MISMATCH";
      case 205: return "NDRT_ERR_UNKNOWN_OP";
      case 300: return "NDRT_ERR_NOT_SUPPORTED";
      case 301: return "NDRT_ERR_NOT_CONFIGURED";
      case 400: return "NDRT_ERR_LOAD";
      case 500: return "NDRT_ERR_INTERNAL";
      default: return "NDRT_UNKNOWN_STATUS";
    }
  }
}
