package org.datavec.api.io;

import org.datavec.api.io.converters.WritableConverterException;
import org.datavec.api.writable.Writable;

/** Converts one Writable into another (DataVec's WritableConverter): label text to an index, etc. */
public interface WritableConverter {
  Writable convert(Writable writable) throws WritableConverterException;
}
