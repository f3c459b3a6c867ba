package org.datavec.api.split;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.util.Iterator;

/** The locations a record reader reads (DataVec's InputSplit). */
public interface InputSplit {
  boolean canWriteToLocation(URI location);

  String addNewLocation();

  String addNewLocation(String location);

  void updateSplitLocations(boolean reset);

  boolean needsBootstrapForWrite();

  void bootStrapForWrite();

  OutputStream openOutputStreamFor(String location) throws Exception;

  InputStream openInputStreamFor(String location) throws Exception;

  long length();

  URI[] locations();

  Iterator<URI> locationsIterator();

  Iterator<String> locationsPathIterator();

  void reset();

  boolean resetSupported();
}
