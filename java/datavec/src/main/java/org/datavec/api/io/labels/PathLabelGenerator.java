package org.datavec.api.io.labels;

import java.io.Serializable;
import java.net.URI;
import org.datavec.api.writable.Writable;

/** The label of a file from its path (DataVec's PathLabelGenerator). */
public interface PathLabelGenerator extends Serializable {
  Writable getLabelForPath(String path);

  Writable getLabelForPath(URI uri);

  /** True when labels are class names the reader turns into indices (classification). */
  boolean inferLabelClasses();
}
