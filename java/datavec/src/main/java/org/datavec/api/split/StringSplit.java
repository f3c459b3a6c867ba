package org.datavec.api.split;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Iterator;

/** Text held in memory instead of a file (DataVec's StringSplit): line readers read its lines. */
public class StringSplit implements InputSplit {
  private final String data;

  public StringSplit(String data) {
    this.data = data;
  }

  public String getData() {
    return data;
  }

  @Override
  public boolean canWriteToLocation(URI location) {
    return false;
  }

  @Override
  public String addNewLocation() {
    throw BaseInputSplit.refused("StringSplit.addNewLocation");
  }

  @Override
  public String addNewLocation(String location) {
    throw BaseInputSplit.refused("StringSplit.addNewLocation");
  }

  @Override
  public void updateSplitLocations(boolean reset) {}

  @Override
  public boolean needsBootstrapForWrite() {
    return false;
  }

  @Override
  public void bootStrapForWrite() {
    throw BaseInputSplit.refused("StringSplit.bootStrapForWrite");
  }

  @Override
  public OutputStream openOutputStreamFor(String location) {
    throw BaseInputSplit.refused("StringSplit.openOutputStreamFor");
  }

  @Override
  public InputStream openInputStreamFor(String location) {
    return new ByteArrayInputStream(data.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public long length() {
    return data.length();
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
