package org.nd4j.linalg.dataset;

import java.io.Serializable;

/** A train and a test part of a DataSet, as ND4J's SplitTestAndTrain. */
public class SplitTestAndTrain implements Serializable {
  private static final long serialVersionUID = 1L;
  private DataSet train;
  private DataSet test;

  public SplitTestAndTrain(DataSet train, DataSet test) {
    this.train = train;
    this.test = test;
  }

  public DataSet getTest() {
    return test;
  }

  public void setTest(DataSet test) {
    this.test = test;
  }

  public DataSet getTrain() {
    return train;
  }

  public void setTrain(DataSet train) {
    this.train = train;
  }
}
