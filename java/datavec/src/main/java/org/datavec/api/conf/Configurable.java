package org.datavec.api.conf;

/** Something configured by a {@link Configuration} (DataVec's Configurable). */
public interface Configurable {
  void setConf(Configuration conf);

  Configuration getConf();
}
