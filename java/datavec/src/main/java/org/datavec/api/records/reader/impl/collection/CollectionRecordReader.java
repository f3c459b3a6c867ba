package org.datavec.api.records.reader.impl.collection;

import java.io.DataInputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import org.datavec.api.conf.Configuration;
import org.datavec.api.records.Record;
import org.datavec.api.records.metadata.RecordMetaDataLine;
import org.datavec.api.records.reader.BaseRecordReader;
import org.datavec.api.split.InputSplit;
import org.datavec.api.writable.Writable;

/** Records held in memory (DataVec's CollectionRecordReader); the split given to initialize is ignored. */
public class CollectionRecordReader extends BaseRecordReader {
  private static final long serialVersionUID = 1L;
  private final Collection<? extends Collection<Writable>> original;
  private transient Iterator<? extends Collection<Writable>> records;
  private int count;
  private Configuration conf;

  public CollectionRecordReader(Collection<? extends Collection<Writable>> collection) {
    this.original = collection;
    this.records = collection.iterator();
  }

  @Override
  public void initialize(InputSplit split) {
    initialize(null, split);
  }

  @Override
  public void initialize(Configuration conf, InputSplit split) {
    this.conf = conf;
    reset();
  }

  @Override
  public List<Writable> next() {
    List<Writable> r = new ArrayList<>(records.next());
    count++;
    invokeListeners(r);
    return r;
  }

  @Override
  public boolean hasNext() {
    return records.hasNext();
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

  @Override
  public List<String> getLabels() {
    return null;
  }

  @Override
  public void reset() {
    records = original.iterator();
    count = 0;
  }

  @Override
  public boolean resetSupported() {
    return true;
  }

  @Override
  public List<Writable> record(URI uri, DataInputStream dataInputStream) {
    throw refused("CollectionRecordReader.record", "the records are in memory, there is no stream to read");
  }

  @Override
  public Record nextRecord() {
    List<Writable> r = next();
    return new org.datavec.api.records.impl.Record(r, new RecordMetaDataLine(count - 1, null, CollectionRecordReader.class));
  }
}
