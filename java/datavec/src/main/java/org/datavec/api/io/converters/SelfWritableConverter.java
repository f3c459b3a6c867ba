package org.datavec.api.io.converters;

import org.datavec.api.io.WritableConverter;
import org.datavec.api.writable.Writable;

/** The identity WritableConverter (DataVec's SelfWritableConverter, the iterators' default). */
public class SelfWritableConverter implements WritableConverter {
  @Override
  public Writable convert(Writable writable) {
    return writable;
  }
}
