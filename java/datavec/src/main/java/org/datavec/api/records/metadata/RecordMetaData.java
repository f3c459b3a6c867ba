package org.datavec.api.records.metadata;

import java.io.Serializable;
import java.net.URI;

/** Where a record came from (DataVec's RecordMetaData). */
public interface RecordMetaData extends Serializable {
  String getLocation();

  URI getURI();

  Class<?> getReaderClass();
}
