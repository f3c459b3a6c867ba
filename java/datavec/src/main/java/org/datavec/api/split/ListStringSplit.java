package org.datavec.api.split;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;

/** Records of strings held in memory (DataVec's ListStringSplit), read by ListStringRecordReader. */
public class ListStringSplit implements InputSplit {
  private final List<List<String>> data;

  public ListStringSplit(List<List<String>> data) {
    this.data = data;
  }

  public List<List<String>> getData() {
    return data;
  }

  @Override
  public boolean canWriteToLocation(URI location) {
    return false;
  }

  @Override
  public String addNewLocation() {
    throw BaseInputSplit.refused("ListStringSplit.addNewLocation");
  }

  @Override
  public String addNewLocation(String location) {
    throw BaseInputSplit.refused("ListStringSplit.addNewLocation");
  }

  @Override
  public void updateSplitLocations(boolean reset) {}

  @Override
  public boolean needsBootstrapForWrite() {
    return false;
  }

  @Override
  public void bootStrapForWrite() {
    throw BaseInputSplit.refused("ListStringSplit.bootStrapForWrite");
  }

  @Override
  public OutputStream openOutputStreamFor(String location) {
    throw BaseInputSplit.refused("ListStringSplit.openOutputStreamFor");
  }

  @Override
  public InputStream openInputStreamFor(String location) {
    throw BaseInputSplit.refused("ListStringSplit.openInputStreamFor");
  }

  @Override
  public long length() {
    return data.size();
  }

  @Override
  public URI[] locations() {
    return new URI[0];
  }

  @Override
  public Iterator<URI> locationsIterator() {
    return Collections.emptyIterator();
  }

  @Override
  public Iterator<String> locationsPathIterator() {
    return Collections.emptyIterator();
  }

  @Override
  public void reset() {}

  @Override
  public boolean resetSupported() {
    return true;
  }
}
