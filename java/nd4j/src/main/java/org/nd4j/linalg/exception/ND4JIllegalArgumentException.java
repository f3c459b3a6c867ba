package org.nd4j.linalg.exception;

/** ND4J's exception for an argument that is invalid whatever the arrays hold. */
public class ND4JIllegalArgumentException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public ND4JIllegalArgumentException() {
    super();
  }

  public ND4JIllegalArgumentException(String message) {
    super(message);
  }

  public ND4JIllegalArgumentException(String message, Throwable cause) {
    super(message, cause);
  }
}
