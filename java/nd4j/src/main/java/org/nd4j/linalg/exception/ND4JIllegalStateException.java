package org.nd4j.linalg.exception;

/** ND4J's exception for an operation that cannot run on arrays in their present state or shapes. */
public class ND4JIllegalStateException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  public ND4JIllegalStateException() {
    super();
  }

  public ND4JIllegalStateException(String message) {
    super(message);
  }

  public ND4JIllegalStateException(String message, Throwable cause) {
    super(message, cause);
  }

  public ND4JIllegalStateException(Throwable cause) {
    super(cause);
  }
}
