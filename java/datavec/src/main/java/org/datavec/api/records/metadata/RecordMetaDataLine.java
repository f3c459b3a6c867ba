package org.datavec.api.records.metadata;

import java.net.URI;

/** A record that starts on a line of a file (DataVec's RecordMetaDataLine); the line number counts from 0. */
public class RecordMetaDataLine implements RecordMetaData {
  private static final long serialVersionUID = 1L;
  private final int lineNumber;
  private final URI uri;
  private final Class<?> readerClass;

  public RecordMetaDataLine(int lineNumber, URI uri, Class<?> readerClass) {
    this.lineNumber = lineNumber;
    this.uri = uri;
    this.readerClass = readerClass;
  }

  public int getLineNumber() {
    return lineNumber;
  }

  @Override
  public String getLocation() {
    return (uri == null ? "" : uri + " ") + "line " + lineNumber;
  }

  @Override
  public URI getURI() {
    return uri;
  }

  @Override
  public Class<?> getReaderClass() {
    return readerClass;
  }

  @Override
  public String toString() {
    return "RecordMetaDataLine(lineNumber=" + lineNumber + ", uri=" + uri + ")";
  }
}
