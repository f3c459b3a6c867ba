package org.datavec.api.records.reader.impl.collection;

import java.io.DataInputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.datavec.api.conf.Configuration;
import org.datavec.api.records.Record;
import org.datavec.api.records.metadata.RecordMetaDataLine;
import org.datavec.api.records.reader.BaseRecordReader;
import org.datavec.api.split.InputSplit;
import org.datavec.api.split.ListStringSplit;
import org.datavec.api.writable.Text;
import org.datavec.api.writable.Writable;

/** The records of a ListStringSplit, each string a Text (DataVec's ListStringRecordReader). */
public class ListStringRecordReader extends BaseRecordReader {
  private static final long serialVersionUID = 1L;
  private transient List<List<String>> data;
  private transient Iterator<List<String>> records;
  private int count;
  private Configuration conf;

  public ListStringRecordReader() {}

  @Override
  public void initialize(InputSplit split) {
    initialize(null, split);
  }

  @Override
  public void initialize(Configuration conf, InputSplit split) {
    if (!(split instanceof ListStringSplit)) {
      throw new IllegalArgumentException("ListStringRecordReader reads a ListStringSplit only: got "
          + (split == null ? "null" : split.getClass().getName()));
    }
    this.conf = conf;
    this.inputSplit = split;
    this.data = ((ListStringSplit) split).getData();
    reset();
  }

  @Override
  public List<Writable> next() {
    if (records == null) {
      throw new IllegalStateException("ListStringRecordReader: call initialize(ListStringSplit) before reading");
    }
    List<Writable> r = new ArrayList<>();
    for (String s : records.next()) {
      r.add(new Text(s));
    }
    count++;
    invokeListeners(r);
    return r;
  }

  @Override
  public boolean hasNext() {
    return records != null && records.hasNext();
  }

  @Override
  public List<String> getLabels() {
    return null;
  }

  @Override
  public void reset() {
    records = data == null ? null : data.iterator();
    count = 0;
  }

  @Override
  public boolean resetSupported() {
    return true;
  }

  @Override
  public List<Writable> record(URI uri, DataInputStream dataInputStream) {
    throw refused("ListStringRecordReader.record", "the records are in memory, there is no stream to read");
  }

  @Override
  public Record nextRecord() {
    List<Writable> r = next();
    return new org.datavec.api.records.impl.Record(r, new RecordMetaDataLine(count - 1, null, ListStringRecordReader.class));
  }

  @Override
  public void close() {}

  @Override
  public void setConf(Configuration conf) {
    this.conf = conf;
  }

  @Override
  public Configuration getConf() {
    return conf;
  }
}
