package org.datavec.api.records.reader;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import org.datavec.api.conf.Configuration;
import org.datavec.api.records.Record;
import org.datavec.api.records.listener.RecordListener;
import org.datavec.api.records.metadata.RecordMetaData;
import org.datavec.api.split.InputSplit;
import org.datavec.api.writable.Writable;

/** What every reader shares (DataVec's BaseRecordReader): the split, the listeners, next(num) as a loop. */
public abstract class BaseRecordReader implements RecordReader {
  private static final long serialVersionUID = 1L;
  protected InputSplit inputSplit;
  protected List<RecordListener> listeners = new ArrayList<>();

  public BaseRecordReader() {}

  protected void invokeListeners(Object record) {
    for (RecordListener l : listeners) {
      l.recordRead(this, record);
    }
  }

  @Override
  public void initialize(InputSplit split) throws IOException, InterruptedException {
    initialize(new Configuration(), split);
  }

  @Override
  public List<RecordListener> getListeners() {
    return listeners;
  }

  @Override
  public void setListeners(Collection<RecordListener> listeners) {
    this.listeners = new ArrayList<>(listeners);
  }

  @Override
  public void setListeners(RecordListener... listeners) {
    setListeners(Arrays.asList(listeners));
  }

  @Override
  public boolean batchesSupported() {
    return false;
  }

  @Override
  public List<List<Writable>> next(int num) {
    List<List<Writable>> out = new ArrayList<>(Math.min(num, 10000));
    while (out.size() < num && hasNext()) {
      out.add(next());
    }
    return out;
  }

  /** A method the drop-in does not implement, named in the exception. */
  protected static UnsupportedOperationException refused(String method, String why) {
    return new UnsupportedOperationException("ndrt's DataVec drop-in does not implement " + method + ": " + why);
  }

  @Override
  public Record loadFromMetaData(RecordMetaData recordMetaData) throws IOException {
    throw refused(getClass().getSimpleName() + ".loadFromMetaData", "records are not reloaded from metadata");
  }

  @Override
  public List<Record> loadFromMetaData(List<RecordMetaData> recordMetaDatas) throws IOException {
    throw refused(getClass().getSimpleName() + ".loadFromMetaData", "records are not reloaded from metadata");
  }
}
