package org.datavec.api.records.listener;

import java.io.Serializable;
import org.datavec.api.records.reader.RecordReader;

/**
 * Told of each record a reader reads (DataVec's RecordListener, less recordWrite: the drop-in has no
 * record writers).
 */
public interface RecordListener extends Serializable {
  boolean invoked();

  void invoke();

  void recordRead(RecordReader reader, Object record);
}
