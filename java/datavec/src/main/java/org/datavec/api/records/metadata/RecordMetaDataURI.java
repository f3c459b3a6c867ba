package org.datavec.api.records.metadata;

import java.net.URI;

/** A record that is a whole file (DataVec's RecordMetaDataURI). */
public class RecordMetaDataURI implements RecordMetaData {
  private static final long serialVersionUID = 1L;
  private final URI uri;
  private final Class<?> readerClass;

  public RecordMetaDataURI(URI uri, Class<?> readerClass) {
    this.uri = uri;
    this.readerClass = readerClass;
  }

  @Override
  public String getLocation() {
    return String.valueOf(uri);
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
    return "RecordMetaDataURI(uri=" + uri + ")";
  }
}
