package org.nd4j.linalg.dataset;

import java.io.File;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.ndrt.nd4j.DataSets;

/**
 * Several feature and label arrays (with masks) of the same examples, as ND4J's MultiDataSet (what
 * ComputationGraph trains on). Shuffling draws its permutation from java.util.Random.
 */
public class MultiDataSet implements org.nd4j.linalg.dataset.api.MultiDataSet {
  private static final long serialVersionUID = 1L;
  private INDArray[] features;
  private INDArray[] labels;
  private INDArray[] featuresMaskArrays;
  private INDArray[] labelsMaskArrays;
  private List<Serializable> exampleMetaData;

  public MultiDataSet() {
    this(new INDArray[0], new INDArray[0]);
  }

  public MultiDataSet(INDArray features, INDArray labels) {
    this(features, labels, null, null);
  }

  public MultiDataSet(INDArray features, INDArray labels, INDArray featuresMask, INDArray labelsMask) {
    this(features == null ? null : new INDArray[] {features}, labels == null ? null : new INDArray[] {labels},
        featuresMask == null ? null : new INDArray[] {featuresMask}, labelsMask == null ? null : new INDArray[] {labelsMask});
  }

  public MultiDataSet(INDArray[] features, INDArray[] labels) {
    this(features, labels, null, null);
  }

  public MultiDataSet(INDArray[] features, INDArray[] labels, INDArray[] featuresMaskArrays, INDArray[] labelsMaskArrays) {
    this(features, labels, featuresMaskArrays, labelsMaskArrays, null);
  }

  public MultiDataSet(INDArray[] features, INDArray[] labels, INDArray[] featuresMaskArrays, INDArray[] labelsMaskArrays,
      List<Serializable> exampleMetaData) {
    if (features != null && featuresMaskArrays != null && features.length != featuresMaskArrays.length) {
      throw new IllegalArgumentException("Invalid features / features mask arrays combination: features and features "
          + "mask arrays must not be different lengths");
    }
    if (labels != null && labelsMaskArrays != null && labels.length != labelsMaskArrays.length) {
      throw new IllegalArgumentException("Invalid labels / labels mask arrays combination: labels and labels mask "
          + "arrays must not be different lengths");
    }
    this.features = features;
    this.labels = labels;
    this.featuresMaskArrays = featuresMaskArrays;
    this.labelsMaskArrays = labelsMaskArrays;
    this.exampleMetaData = exampleMetaData;
  }

  /** The data sets' examples one after the other (copies), array by array. */
  public static MultiDataSet merge(Collection<? extends org.nd4j.linalg.dataset.api.MultiDataSet> toMerge) {
    List<? extends org.nd4j.linalg.dataset.api.MultiDataSet> list = new ArrayList<>(toMerge);
    if (list.isEmpty()) {
      throw new IllegalArgumentException("Cannot merge empty collection of MultiDataSets");
    }
    if (list.size() == 1) {
      return (MultiDataSet) list.get(0).copy();
    }
    org.nd4j.linalg.dataset.api.MultiDataSet first = list.get(0);
    int nf = first.numFeatureArrays(), nl = first.numLabelsArrays();
    INDArray[] f = new INDArray[nf], l = new INDArray[nl], fm = new INDArray[nf], lm = new INDArray[nl];
    boolean anyFm = false, anyLm = false;
    for (int i = 0; i < nf; i++) {
      List<INDArray> a = new ArrayList<>(), m = new ArrayList<>();
      for (org.nd4j.linalg.dataset.api.MultiDataSet ds : list) {
        if (ds.numFeatureArrays() != nf || ds.numLabelsArrays() != nl) {
          throw new IllegalStateException("Cannot merge MultiDataSets with different number of input/output arrays");
        }
        a.add(ds.getFeatures(i));
        m.add(ds.getFeaturesMaskArray(i));
      }
      f[i] = DataSets.stack(a, "features " + i);
      fm[i] = DataSets.stackMasks(m, a, "features " + i);
      anyFm |= fm[i] != null;
    }
    for (int i = 0; i < nl; i++) {
      List<INDArray> a = new ArrayList<>(), m = new ArrayList<>();
      for (org.nd4j.linalg.dataset.api.MultiDataSet ds : list) {
        a.add(ds.getLabels(i));
        m.add(ds.getLabelsMaskArray(i));
      }
      l[i] = DataSets.stack(a, "labels " + i);
      lm[i] = DataSets.stackMasks(m, a, "labels " + i);
      anyLm |= lm[i] != null;
    }
    return new MultiDataSet(f, l, anyFm ? fm : null, anyLm ? lm : null);
  }

  private static INDArray at(INDArray[] a, int i) {
    return a == null ? null : a[i];
  }

  @Override public int numFeatureArrays() { return features == null ? 0 : features.length; }
  @Override public int numLabelsArrays() { return labels == null ? 0 : labels.length; }
  @Override public INDArray[] getFeatures() { return features; }
  @Override public INDArray getFeatures(int index) { return features[index]; }
  @Override public void setFeatures(INDArray[] features) { this.features = features; }
  @Override public void setFeatures(int idx, INDArray f) { features[idx] = f; }
  @Override public INDArray[] getLabels() { return labels; }
  @Override public INDArray getLabels(int index) { return labels[index]; }
  @Override public void setLabels(INDArray[] labels) { this.labels = labels; }
  @Override public void setLabels(int idx, INDArray l) { labels[idx] = l; }
  @Override public INDArray[] getFeaturesMaskArrays() { return featuresMaskArrays; }
  @Override public INDArray getFeaturesMaskArray(int index) { return at(featuresMaskArrays, index); }
  @Override public void setFeaturesMaskArrays(INDArray[] m) { this.featuresMaskArrays = m; }
  @Override public INDArray[] getLabelsMaskArrays() { return labelsMaskArrays; }
  @Override public INDArray getLabelsMaskArray(int index) { return at(labelsMaskArrays, index); }
  @Override public void setLabelsMaskArray(INDArray[] m) { this.labelsMaskArrays = m; }

  @Override
  public void setFeaturesMaskArray(int idx, INDArray maskArray) {
    if (featuresMaskArrays == null) {
      featuresMaskArrays = new INDArray[numFeatureArrays()];
    }
    featuresMaskArrays[idx] = maskArray;
  }

  @Override
  public void setLabelsMaskArray(int idx, INDArray labelsMaskArray) {
    if (labelsMaskArrays == null) {
      labelsMaskArrays = new INDArray[numLabelsArrays()];
    }
    labelsMaskArrays[idx] = labelsMaskArray;
  }

  @Override
  public boolean hasMaskArrays() {
    for (INDArray[] ms : new INDArray[][] {featuresMaskArrays, labelsMaskArrays}) {
      if (ms != null) {
        for (INDArray m : ms) {
          if (m != null) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private long numExamples() {
    if (features != null && features.length > 0) {
      return features[0].size(0);
    }
    return labels != null && labels.length > 0 ? labels[0].size(0) : 0;
  }

  private static INDArray[] rows(INDArray[] a, long i) {
    if (a == null) {
      return null;
    }
    INDArray[] out = new INDArray[a.length];
    for (int k = 0; k < a.length; k++) {
      out[k] = DataSets.rows(a[k], i, i + 1);
    }
    return out;
  }

  @Override
  public List<org.nd4j.linalg.dataset.api.MultiDataSet> asList() {
    List<org.nd4j.linalg.dataset.api.MultiDataSet> out = new ArrayList<>();
    for (long i = 0; i < numExamples(); i++) {
      out.add(new MultiDataSet(rows(features, i), rows(labels, i), rows(featuresMaskArrays, i), rows(labelsMaskArrays, i)));
    }
    return out;
  }

  private static INDArray[] dup(INDArray[] a) {
    if (a == null) {
      return null;
    }
    INDArray[] out = new INDArray[a.length];
    for (int i = 0; i < a.length; i++) {
      out[i] = a[i] == null ? null : a[i].dup();
    }
    return out;
  }

  @Override
  public MultiDataSet copy() {
    return new MultiDataSet(dup(features), dup(labels), dup(featuresMaskArrays), dup(labelsMaskArrays),
        exampleMetaData == null ? null : new ArrayList<>(exampleMetaData));
  }

  /** Reorders the examples of every array in place, the same permutation for all. */
  @Override
  public void shuffle() {
    int n = (int) numExamples();
    if (n < 2) {
      return;
    }
    long[] perm = DataSets.permutation(n, System.currentTimeMillis());
    for (INDArray[] arrays : new INDArray[][] {features, labels, featuresMaskArrays, labelsMaskArrays}) {
      if (arrays != null) {
        for (INDArray a : arrays) {
          DataSets.permuteRows(a, perm);
        }
      }
    }
  }

  @Override
  public void setExampleMetaData(List<? extends Serializable> m) {
    this.exampleMetaData = m == null ? null : new ArrayList<>(m);
  }

  @Override
  public <T extends Serializable> List<T> getExampleMetaData(Class<T> metaDataType) {
    List<T> out = new ArrayList<>();
    if (exampleMetaData != null) {
      for (Serializable s : exampleMetaData) {
        out.add(metaDataType.cast(s));
      }
    }
    return out;
  }

  @Override
  public List<Serializable> getExampleMetaData() {
    return exampleMetaData;
  }

  @Override
  public long getMemoryFootprint() {
    long bytes = 0;
    for (INDArray[] arrays : new INDArray[][] {features, labels, featuresMaskArrays, labelsMaskArrays}) {
      if (arrays != null) {
        for (INDArray a : arrays) {
          bytes += a == null ? 0 : a.length() * a.dataType().width();
        }
      }
    }
    return bytes;
  }

  /** ndrt has no workspaces: nothing to move. */
  @Override
  public void migrate() {}

  /** ndrt has no workspaces: nothing to detach from. */
  @Override
  public void detach() {}

  @Override
  public boolean isEmpty() {
    return numFeatureArrays() == 0 && numLabelsArrays() == 0;
  }

  private static UnsupportedOperationException refused(String method) {
    return new UnsupportedOperationException("MultiDataSet." + method + " is not in ndrt yet (ND4J's binary format)");
  }

  @Override public void save(OutputStream to) { throw refused("save"); }
  @Override public void save(File to) { throw refused("save"); }
  @Override public void load(InputStream from) { throw refused("load"); }
  @Override public void load(File from) { throw refused("load"); }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    sb.append("MultiDataSet: ").append(numFeatureArrays()).append(" input arrays, ").append(numLabelsArrays())
        .append(" label arrays\n");
    for (int i = 0; i < numFeatureArrays(); i++) {
      sb.append("\n=== INPUT ").append(i).append(" ===\n").append(features[i]);
    }
    for (int i = 0; i < numLabelsArrays(); i++) {
      sb.append("\n=== LABEL ").append(i).append(" ===\n").append(labels[i]);
    }
    return sb.toString();
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof MultiDataSet)) {
      return false;
    }
    MultiDataSet m = (MultiDataSet) o;
    return Arrays.equals(features, m.features) && Arrays.equals(labels, m.labels)
        && Arrays.equals(featuresMaskArrays, m.featuresMaskArrays) && Arrays.equals(labelsMaskArrays, m.labelsMaskArrays);
  }

  @Override
  public int hashCode() {
    return numFeatureArrays() * 31 + numLabelsArrays();
  }
}
