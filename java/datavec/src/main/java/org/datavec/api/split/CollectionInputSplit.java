package org.datavec.api.split;

import java.net.URI;
import java.util.Arrays;
import java.util.Collection;

/** A given list of locations (DataVec's CollectionInputSplit), read in that order. */
public class CollectionInputSplit extends BaseInputSplit {
  public CollectionInputSplit(URI[] array) {
    this(Arrays.asList(array));
  }

  public CollectionInputSplit(Collection<URI> list) {
    for (URI u : list) {
      uriStrings.add(u.toString());
    }
    length = uriStrings.size();
  }

  @Override
  public void reset() {}

  @Override
  public boolean resetSupported() {
    return true;
  }
}
