package org.datavec.api.split;

import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;

/**
 * A split over a list of location strings (URIs), read in iterationOrder when one is set (DataVec's
 * BaseInputSplit). Writing locations is not part of the drop-in: the add/bootstrap methods refuse.
 */
public abstract class BaseInputSplit implements InputSplit {
  protected List<String> uriStrings = new ArrayList<>();
  protected int[] iterationOrder;
  protected long length;

  public BaseInputSplit() {}

  static UnsupportedOperationException refused(String method) {
    return new UnsupportedOperationException("ndrt's DataVec drop-in does not implement " + method
        + ": splits are read, not written");
  }

  @Override
  public boolean canWriteToLocation(URI location) {
    return false;
  }

  @Override
  public String addNewLocation() {
    throw refused("InputSplit.addNewLocation");
  }

  @Override
  public String addNewLocation(String location) {
    throw refused("InputSplit.addNewLocation");
  }

  @Override
  public void updateSplitLocations(boolean reset) {}

  @Override
  public boolean needsBootstrapForWrite() {
    return false;
  }

  @Override
  public void bootStrapForWrite() {
    throw refused("InputSplit.bootStrapForWrite");
  }

  @Override
  public OutputStream openOutputStreamFor(String location) throws Exception {
    return new FileOutputStream(toFile(location));
  }

  @Override
  public InputStream openInputStreamFor(String location) throws Exception {
    return new FileInputStream(toFile(location));
  }

  static File toFile(String location) {
    return location.startsWith("file:") ? new File(URI.create(location)) : new File(location);
  }

  @Override
  public URI[] locations() {
    URI[] out = new URI[uriStrings.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = URI.create(uriStrings.get(iterationOrder == null ? i : iterationOrder[i]));
    }
    return out;
  }

  @Override
  public Iterator<URI> locationsIterator() {
    return Arrays.asList(locations()).iterator();
  }

  @Override
  public Iterator<String> locationsPathIterator() {
    List<String> paths = new ArrayList<>();
    for (URI u : locations()) {
      paths.add("file".equals(u.getScheme()) ? new File(u).getPath() : u.toString());
    }
    return paths.iterator();
  }

  @Override
  public long length() {
    return length;
  }
}
