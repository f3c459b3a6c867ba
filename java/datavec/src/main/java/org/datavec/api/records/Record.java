package org.datavec.api.records;

import java.io.Serializable;
import java.util.List;
import org.datavec.api.records.metadata.RecordMetaData;
import org.datavec.api.writable.Writable;

/** A record with where it came from (DataVec's Record). */
public interface Record extends Serializable {
  List<Writable> getRecord();

  void setRecord(List<Writable> record);

  RecordMetaData getMetaData();

  void setMetaData(RecordMetaData metaData);
}
