package org.datavec.api.io.labels;

import java.io.File;
import java.net.URI;
import org.datavec.api.writable.Text;
import org.datavec.api.writable.Writable;

/** A file's label is the name of the directory holding it (DataVec's ParentPathLabelGenerator). */
public class ParentPathLabelGenerator implements PathLabelGenerator {
  private static final long serialVersionUID = 1L;

  public ParentPathLabelGenerator() {}

  @Override
  public Writable getLabelForPath(String path) {
    File parent = new File(path).getParentFile();
    if (parent == null) {
      throw new IllegalArgumentException("ParentPathLabelGenerator: " + path + " has no parent directory to name its label");
    }
    return new Text(parent.getName());
  }

  @Override
  public Writable getLabelForPath(URI uri) {
    return getLabelForPath(new File(uri).getPath());
  }

  @Override
  public boolean inferLabelClasses() {
    return true;
  }

  @Override
  public String toString() {
    return "ParentPathLabelGenerator()";
  }
}
