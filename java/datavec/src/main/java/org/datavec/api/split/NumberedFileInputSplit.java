package org.datavec.api.split;

import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Files named by a pattern with one integer, from min to max inclusive (DataVec's
 * NumberedFileInputSplit): "data/seq_%d.csv", 0, 9. The pattern holds exactly one %d (or %0Nd).
 */
public class NumberedFileInputSplit implements InputSplit {
  private static final Pattern ONE_INT = Pattern.compile("%(0\\d)?d");
  private final String baseString;
  private final int minIdx;
  private final int maxIdx;

  public NumberedFileInputSplit(String baseString, int minIdxInclusive, int maxIdxInclusive) {
    if (baseString == null || ONE_INT.matcher(baseString).results().count() != 1) {
      throw new IllegalArgumentException("Base String must contain exactly one \"%d\" (or \"%0Nd\"): got \""
          + baseString + "\"");
    }
    if (maxIdxInclusive < minIdxInclusive) {
      throw new IllegalArgumentException("NumberedFileInputSplit: max index " + maxIdxInclusive
          + " is below min index " + minIdxInclusive);
    }
    this.baseString = baseString;
    this.minIdx = minIdxInclusive;
    this.maxIdx = maxIdxInclusive;
  }

  @Override
  public boolean canWriteToLocation(URI location) {
    return false;
  }

  @Override
  public String addNewLocation() {
    throw BaseInputSplit.refused("NumberedFileInputSplit.addNewLocation");
  }

  @Override
  public String addNewLocation(String location) {
    throw BaseInputSplit.refused("NumberedFileInputSplit.addNewLocation");
  }

  @Override
  public void updateSplitLocations(boolean reset) {}

  @Override
  public boolean needsBootstrapForWrite() {
    return false;
  }

  @Override
  public void bootStrapForWrite() {
    throw BaseInputSplit.refused("NumberedFileInputSplit.bootStrapForWrite");
  }

  @Override
  public OutputStream openOutputStreamFor(String location) throws Exception {
    return new FileOutputStream(BaseInputSplit.toFile(location));
  }

  @Override
  public InputStream openInputStreamFor(String location) throws Exception {
    return new FileInputStream(BaseInputSplit.toFile(location));
  }

  @Override
  public long length() {
    return (long) maxIdx - minIdx + 1;
  }

  @Override
  public URI[] locations() {
    URI[] out = new URI[(int) length()];
    for (int i = minIdx; i <= maxIdx; i++) {
      out[i - minIdx] = new File(String.format(baseString, i)).toURI();
    }
    return out;
  }

  @Override
  public Iterator<URI> locationsIterator() {
    return List.of(locations()).iterator();
  }

  @Override
  public Iterator<String> locationsPathIterator() {
    List<String> out = new ArrayList<>();
    for (int i = minIdx; i <= maxIdx; i++) {
      out.add(String.format(baseString, i));
    }
    return out.iterator();
  }

  @Override
  public void reset() {}

  @Override
  public boolean resetSupported() {
    return true;
  }
}
