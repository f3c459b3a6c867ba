package org.datavec.api.io.converters;

/** A Writable that a WritableConverter cannot convert (DataVec's WritableConverterException). */
public class WritableConverterException extends Exception {
  private static final long serialVersionUID = 1L;

  public WritableConverterException() {}

  public WritableConverterException(String message) {
    super(message);
  }

  public WritableConverterException(String message, Throwable cause) {
    super(message, cause);
  }

  public WritableConverterException(Throwable cause) {
    super(cause);
  }
}
