package org.deeplearning4j.datasets.datavec.exception;

/** A sequence with no time steps given to a sequence iterator (Deeplearning4j's ZeroLengthSequenceException). */
public class ZeroLengthSequenceException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ZeroLengthSequenceException() {
    this("");
  }

  /** Deeplearning4j's form: "Encountered zero-length {type} sequence". */
  public ZeroLengthSequenceException(String type) {
    super(String.format("Encountered zero-length %ssequence", type.isEmpty() ? "" : type + " "));
  }

  /** A full message (ndrt's iterators name the sequence and what was empty). */
  public ZeroLengthSequenceException(String message, Throwable cause) {
    super(message, cause);
  }
}
