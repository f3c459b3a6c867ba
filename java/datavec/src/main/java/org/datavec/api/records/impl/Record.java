package org.datavec.api.records.impl;

import java.util.List;
import org.datavec.api.records.metadata.RecordMetaData;
import org.datavec.api.writable.Writable;

/** The plain record (DataVec's records.impl.Record). */
public class Record implements org.datavec.api.records.Record {
  private static final long serialVersionUID = 1L;
  private List<Writable> record;
  private RecordMetaData metaData;

  public Record(List<Writable> record, RecordMetaData metaData) {
    this.record = record;
    this.metaData = metaData;
  }

  @Override
  public List<Writable> getRecord() {
    return record;
  }

  @Override
  public void setRecord(List<Writable> record) {
    this.record = record;
  }

  @Override
  public RecordMetaData getMetaData() {
    return metaData;
  }

  @Override
  public void setMetaData(RecordMetaData metaData) {
    this.metaData = metaData;
  }

  @Override
  public String toString() {
    return "Record(record=" + record + ", metaData=" + metaData + ")";
  }
}
