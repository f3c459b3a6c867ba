package org.datavec.api.records.impl;

import java.util.List;
import org.datavec.api.records.metadata.RecordMetaData;
import org.datavec.api.writable.Writable;

/** The plain sequence record (DataVec's records.impl.SequenceRecord). */
public class SequenceRecord implements org.datavec.api.records.SequenceRecord {
  private static final long serialVersionUID = 1L;
  private List<List<Writable>> sequenceRecord;
  private RecordMetaData metaData;

  public SequenceRecord(List<List<Writable>> sequenceRecord, RecordMetaData metaData) {
    this.sequenceRecord = sequenceRecord;
    this.metaData = metaData;
  }

  @Override
  public List<List<Writable>> getSequenceRecord() {
    return sequenceRecord;
  }

  @Override
  public int getSequenceLength() {
    return sequenceRecord == null ? 0 : sequenceRecord.size();
  }

  @Override
  public List<Writable> getTimeStep(int timeStep) {
    return sequenceRecord.get(timeStep);
  }

  @Override
  public void setSequenceRecord(List<List<Writable>> sequenceRecord) {
    this.sequenceRecord = sequenceRecord;
  }

  @Override
  public RecordMetaData getMetaData() {
    return metaData;
  }

  @Override
  public void setMetaData(RecordMetaData metaData) {
    this.metaData = metaData;
  }
}
