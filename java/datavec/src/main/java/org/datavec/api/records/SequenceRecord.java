package org.datavec.api.records;

import java.io.Serializable;
import java.util.List;
import org.datavec.api.records.metadata.RecordMetaData;
import org.datavec.api.writable.Writable;

/** A sequence of records (time steps) with where it came from (DataVec's SequenceRecord). */
public interface SequenceRecord extends Serializable {
  List<List<Writable>> getSequenceRecord();

  int getSequenceLength();

  List<Writable> getTimeStep(int timeStep);

  void setSequenceRecord(List<List<Writable>> sequenceRecord);

  RecordMetaData getMetaData();

  void setMetaData(RecordMetaData metaData);
}
