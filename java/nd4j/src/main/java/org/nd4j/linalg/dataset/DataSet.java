package org.nd4j.linalg.dataset;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.dataset.api.preprocessor.NormalizerStandardize;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.conditions.Conditions;
import org.ndrt.nd4j.DataSetFiles;
import org.ndrt.nd4j.DataSets;

/**
 * Features and labels (with optional masks) of a set of examples along dimension 0, as ND4J's
 * DataSet. Ranges, splits and single examples are views of the arrays (as ND4J's); merge and
 * batchBy copy. Shuffling draws its permutation from java.util.Random(seed), so it is reproducible
 * here but not the same order as ND4J's native shuffle.
 */
public class DataSet implements org.nd4j.linalg.dataset.api.DataSet {
  private static final long serialVersionUID = 1L;
  private INDArray features;
  private INDArray labels;
  private INDArray featuresMask;
  private INDArray labelsMask;
  private List<String> labelNames;
  private List<String> columnNames;
  private List<Serializable> exampleMetaData;
  private boolean preProcessed;

  public DataSet() {}

  public DataSet(INDArray first, INDArray second) {
    this(first, second, null, null);
  }

  public DataSet(INDArray features, INDArray labels, INDArray featuresMask, INDArray labelsMask) {
    this.features = features;
    this.labels = labels;
    this.featuresMask = featuresMask;
    this.labelsMask = labelsMask;
  }

  public static DataSet empty() {
    return new DataSet();
  }

  /** The data sets' examples one after the other (copies); empty ones are skipped. */
  public static DataSet merge(List<? extends org.nd4j.linalg.dataset.api.DataSet> data) {
    if (data.isEmpty()) {
      throw new IllegalArgumentException("Unable to merge empty dataset");
    }
    List<INDArray> f = new ArrayList<>(), l = new ArrayList<>(), fm = new ArrayList<>(), lm = new ArrayList<>();
    List<Serializable> meta = new ArrayList<>();
    boolean allMeta = true;
    for (org.nd4j.linalg.dataset.api.DataSet ds : data) {
      if (ds.isEmpty()) {
        continue;
      }
      if (!f.isEmpty() && (ds.getFeatures() == null) != (f.get(0) == null)) {
        throw new IllegalStateException("Cannot merge features: encountered null features in one or more DataSets");
      }
      if (!l.isEmpty() && (ds.getLabels() == null) != (l.get(0) == null)) {
        throw new IllegalStateException("Cannot merge labels: enountered null labels in one or more DataSets");
      }
      f.add(ds.getFeatures());
      l.add(ds.getLabels());
      fm.add(ds.getFeaturesMaskArray());
      lm.add(ds.getLabelsMaskArray());
      List<Serializable> m = ds.getExampleMetaData();
      if (m == null || m.size() != ds.numExamples()) {
        allMeta = false;
      } else {
        meta.addAll(m);
      }
    }
    if (f.isEmpty()) {
      return new DataSet();
    }
    DataSet out = new DataSet(f.get(0) == null ? null : DataSets.stack(f, "features"),
        l.get(0) == null ? null : DataSets.stack(l, "labels"),
        DataSets.stackMasks(fm, f, "features"), DataSets.stackMasks(lm, l, "labels"));
    if (allMeta) {
      out.setExampleMetaData(meta);
    }
    return out;
  }

  public boolean isPreProcessed() {
    return preProcessed;
  }

  public void markAsPreProcessed() {
    preProcessed = true;
  }

  // ------------------------------------------------------------------------------- arrays

  @Override public INDArray getFeatures() { return features; }
  @Override public void setFeatures(INDArray features) { this.features = features; }
  @Override public INDArray getLabels() { return labels; }
  @Override public void setLabels(INDArray labels) { this.labels = labels; }
  @Override public INDArray getFeaturesMaskArray() { return featuresMask; }
  @Override public void setFeaturesMaskArray(INDArray inputMask) { this.featuresMask = inputMask; }
  @Override public INDArray getLabelsMaskArray() { return labelsMask; }
  @Override public void setLabelsMaskArray(INDArray labelsMask) { this.labelsMask = labelsMask; }

  @Override
  public boolean hasMaskArrays() {
    return featuresMask != null || labelsMask != null;
  }

  @Override
  public int numExamples() {
    if (features != null) {
      return (int) features.size(0);
    }
    return labels != null ? (int) labels.size(0) : 0;
  }

  @Override
  public int numInputs() {
    return (int) features.size(1);
  }

  @Override
  public int numOutcomes() {
    return (int) labels.size(1);
  }

  @Override
  public boolean isEmpty() {
    return features == null && labels == null && featuresMask == null && labelsMask == null;
  }

  @Override
  public void validate() {
    if (features.size(0) != labels.size(0)) {
      throw new IllegalStateException("Invalid dataset");
    }
  }

  // ------------------------------------------------------------------------------- examples

  @Override
  public org.nd4j.linalg.dataset.api.DataSet getRange(int from, int to) {
    return new DataSet(DataSets.rows(features, from, to), DataSets.rows(labels, from, to),
        DataSets.rows(featuresMask, from, to), DataSets.rows(labelsMask, from, to));
  }

  /** Example i (a view, keeping the example dimension). */
  @Override
  public DataSet get(int i) {
    if (i >= numExamples() || i < 0) {
      throw new IllegalArgumentException("invalid example number: must be 0 to " + (numExamples() - 1) + ", got " + i);
    }
    if (i == 0 && numExamples() == 1) {
      return this;
    }
    return (DataSet) getRange(i, i + 1);
  }

  @Override
  public DataSet get(int[] i) {
    List<DataSet> list = new ArrayList<>();
    for (int ex : i) {
      list.add(get(ex));
    }
    return merge(list);
  }

  @Override
  public List<DataSet> asList() {
    List<DataSet> list = new ArrayList<>(numExamples());
    for (int i = 0; i < numExamples(); i++) {
      DataSet ds = (DataSet) getRange(i, i + 1);
      if (exampleMetaData != null && exampleMetaData.size() > i) {
        ds.setExampleMetaData(Collections.singletonList(exampleMetaData.get(i)));
      }
      list.add(ds);
    }
    return list;
  }

  @Override
  public Iterator<DataSet> iterator() {
    return asList().iterator();
  }

  /** Consecutive batches of {@code num} examples (the last may be smaller), copied. */
  @Override
  public List<DataSet> batchBy(int num) {
    List<DataSet> out = new ArrayList<>();
    for (int from = 0; from < numExamples(); from += num) {
      DataSet part = (DataSet) getRange(from, Math.min(from + num, numExamples()));
      out.add(merge(Collections.singletonList(part)));
    }
    return out;
  }

  @Override
  public List<DataSet> dataSetBatches(int num) {
    List<DataSet> out = new ArrayList<>();
    for (int from = 0; from < numExamples(); from += num) {
      out.add((DataSet) getRange(from, Math.min(from + num, numExamples())));
    }
    return out;
  }

  /** The first {@code numHoldout} examples to train, the rest to test (views, as ND4J's). */
  @Override
  public SplitTestAndTrain splitTestAndTrain(int numHoldout) {
    int n = numExamples();
    if (n <= 1) {
      throw new IllegalStateException("Cannot split DataSet with <= 1 rows (data set has " + n + " example)");
    }
    if (numHoldout >= n) {
      throw new IllegalArgumentException("Unable to split on size equal or larger than the number of rows (# numExamples="
          + n + ", numHoldout=" + numHoldout + ")");
    }
    DataSet train = (DataSet) getRange(0, numHoldout);
    DataSet test = (DataSet) getRange(numHoldout, n);
    if (exampleMetaData != null) {
      train.setExampleMetaData(new ArrayList<>(exampleMetaData.subList(0, Math.min(numHoldout, exampleMetaData.size()))));
      test.setExampleMetaData(new ArrayList<>(exampleMetaData.subList(Math.min(numHoldout, exampleMetaData.size()),
          Math.min(n, exampleMetaData.size()))));
    }
    return new SplitTestAndTrain(train, test);
  }

  /** Shuffles (in place, with a seed drawn from {@code rnd}) and splits. */
  @Override
  public SplitTestAndTrain splitTestAndTrain(int numHoldout, Random rnd) {
    shuffle(rnd.nextLong());
    return splitTestAndTrain(numHoldout);
  }

  @Override
  public SplitTestAndTrain splitTestAndTrain(double fractionTrain) {
    if (!(fractionTrain > 0.0 && fractionTrain < 1.0)) {
      throw new IllegalArgumentException("Train fraction must be > 0.0 and < 1.0 - got " + fractionTrain);
    }
    int numTrain = (int) (fractionTrain * numExamples());
    return splitTestAndTrain(Math.max(numTrain, 1));
  }

  @Override
  public void shuffle() {
    shuffle(System.currentTimeMillis());
  }

  /** Reorders the examples in place (features, labels, masks and metadata alike). */
  public void shuffle(long seed) {
    int n = numExamples();
    if (n < 2) {
      return;
    }
    long[] perm = DataSets.permutation(n, seed);
    DataSets.permuteRows(features, perm);
    DataSets.permuteRows(labels, perm);
    DataSets.permuteRows(featuresMask, perm);
    DataSets.permuteRows(labelsMask, perm);
    if (exampleMetaData != null && exampleMetaData.size() == n) {
      List<Serializable> m = new ArrayList<>(n);
      for (long p : perm) {
        m.add(exampleMetaData.get((int) p));
      }
      exampleMetaData = m;
    }
  }

  @Override
  public DataSet sample(int numSamples) {
    return sample(numSamples, Nd4j.getRandom());
  }

  @Override
  public DataSet sample(int numSamples, org.nd4j.linalg.api.rng.Random rng) {
    return sample(numSamples, rng, false);
  }

  @Override
  public DataSet sample(int numSamples, boolean withReplacement) {
    return sample(numSamples, Nd4j.getRandom(), withReplacement);
  }

  @Override
  public DataSet sample(int numSamples, org.nd4j.linalg.api.rng.Random rng, boolean withReplacement) {
    Set<Integer> added = new HashSet<>();
    List<DataSet> picked = new ArrayList<>();
    int n = numExamples();
    for (int i = 0; i < numSamples && (withReplacement || added.size() < n); i++) {
      int p = rng.nextInt(n);
      while (!withReplacement && added.contains(p)) {
        p = rng.nextInt(n);
      }
      added.add(p);
      picked.add(get(p));
    }
    return merge(picked);
  }

  @Override
  public DataSet copy() {
    DataSet ret = new DataSet(dup(features), dup(labels), dup(featuresMask), dup(labelsMask));
    ret.setColumnNames(columnNames);
    ret.setLabelNames(labelNames);
    return ret;
  }

  private static INDArray dup(INDArray a) {
    return a == null ? null : a.dup();
  }

  // ------------------------------------------------------------------------------- labels

  /** How many examples have each class (the argmax of their label row). */
  @Override
  public Map<Integer, Double> labelCounts() {
    Map<Integer, Double> ret = new TreeMap<>();
    if (labels == null) {
      return ret;
    }
    INDArray idx = Nd4j.argMax(labels, 1);
    for (int i = 0; i < idx.length(); i++) {
      ret.merge((int) idx.getDouble(i), 1.0, Double::sum);
    }
    return ret;
  }

  /** The class of a one-example data set (argmax of its labels). */
  @Override
  public int outcome() {
    return Nd4j.argMax(labels.reshape(-1)).getInt(0);
  }

  @Override
  public DataSet filterBy(int[] labelsToKeep) {
    Set<Integer> keep = new HashSet<>();
    for (int l : labelsToKeep) {
      keep.add(l);
    }
    List<DataSet> kept = new ArrayList<>();
    for (DataSet d : asList()) {
      if (keep.contains(d.outcome())) {
        kept.add(d);
      }
    }
    return merge(kept);
  }

  @Override public List<String> getLabelNames() { return labelNames; }
  @Override public List<String> getLabelNamesList() { return labelNames; }
  @Override public void setLabelNames(List<String> labelNames) { this.labelNames = labelNames; }
  @Override public List<String> getColumnNames() { return columnNames; }
  @Override public void setColumnNames(List<String> columnNames) { this.columnNames = columnNames; }

  @Override
  public String getLabelName(int idx) {
    if (labelNames == null) {
      throw new IllegalStateException("Label names are not defined on this dataset. Add label names in order to use "
          + "getLabelName with an id.");
    }
    return labelNames.get(idx);
  }

  @Override
  public List<String> getLabelNames(INDArray idxs) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < idxs.length(); i++) {
      out.add(getLabelName((int) idxs.getDouble(i)));
    }
    return out;
  }

  // ------------------------------------------------------------------------------- feature transforms

  @Override
  public void multiplyBy(double num) {
    features.muli(num);
  }

  @Override
  public void divideBy(int num) {
    features.divi(num);
  }

  /** Standardises the features with their own mean and (population) std, as ND4J does. */
  @Override
  public void normalize() {
    NormalizerStandardize n = new NormalizerStandardize();
    n.fit(this);
    n.transform(this);
  }

  /** Per column: subtract the mean, divide by the (sample) std + 1e-5, as ND4J does. */
  @Override
  public void normalizeZeroMeanZeroUnitVariance() {
    INDArray means = features.mean(0);
    INDArray stds = features.std(0).addi(Nd4j.EPS_THRESHOLD);
    features.subiRowVector(means);
    features.diviRowVector(stds);
  }

  @Override
  public void binarize() {
    binarize(0);
  }

  /** Features above {@code cutoff} become 1, the others 0. */
  @Override
  public void binarize(double cutoff) {
    INDArray above = features.gt(cutoff).castTo(features.dataType());
    features.assign(above);
  }

  /** Clamps the features to [min, max]. */
  @Override
  public void squishToRange(double min, double max) {
    org.nd4j.linalg.indexing.BooleanIndexing.replaceWhere(features, min, Conditions.lessThan(min));
    org.nd4j.linalg.indexing.BooleanIndexing.replaceWhere(features, max, Conditions.greaterThan(max));
  }

  @Override
  public INDArray exampleSums() {
    return features.sum(1);
  }

  @Override
  public INDArray exampleMaxs() {
    return features.max(1);
  }

  @Override
  public INDArray exampleMeans() {
    return features.mean(1);
  }

  // ------------------------------------------------------------------------------- metadata, memory

  @Override
  public void setExampleMetaData(List<? extends Serializable> exampleMetaData) {
    this.exampleMetaData = exampleMetaData == null ? null : new ArrayList<>(exampleMetaData);
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
    for (INDArray a : new INDArray[] {features, labels, featuresMask, labelsMask}) {
      if (a != null) {
        bytes += a.length() * a.dataType().width();
      }
    }
    return bytes;
  }

  /** ndrt has no workspaces: the arrays already live outside any, so there is nothing to move. */
  @Override
  public void migrate() {}

  /** ndrt has no workspaces: nothing to detach from. */
  @Override
  public void detach() {}

  @Override
  public String id() {
    return "";
  }

  @Override
  public org.nd4j.linalg.dataset.api.MultiDataSet toMultiDataSet() {
    return new MultiDataSet(features == null ? null : new INDArray[] {features},
        labels == null ? null : new INDArray[] {labels}, featuresMask == null ? null : new INDArray[] {featuresMask},
        labelsMask == null ? null : new INDArray[] {labelsMask}, exampleMetaData);
  }

  @Override
  public DataSetIterator iterateWithMiniBatches() {
    throw refused("iterateWithMiniBatches", "use new ViewIterator(dataSet, batchSize)");
  }

  // ------------------------------------------------------------------------------- files

  /**
   * Writes features, labels and masks in ndrt's own format (org.ndrt.nd4j.DataSetFiles: the arrays
   * bit for bit; not ND4J's format, so files move between ndrt programs only). The stream stays open.
   */
  @Override
  public void save(OutputStream to) {
    try {
      DataSetFiles.write(to, new INDArray[] {features, labels, featuresMask, labelsMask});
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void save(File to) {
    try (OutputStream o = new BufferedOutputStream(new FileOutputStream(to))) {
      save(o);
    } catch (IOException e) {
      throw new UncheckedIOException("DataSet.save: " + to, e);
    }
  }

  /** Replaces features, labels and masks with what {@link #save} wrote (ndrt's format only). */
  @Override
  public void load(InputStream from) {
    try {
      INDArray[] a = DataSetFiles.read(from);
      features = a[0];
      labels = a[1];
      featuresMask = a[2];
      labelsMask = a[3];
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void load(File from) {
    try (InputStream i = new BufferedInputStream(new FileInputStream(from))) {
      load(i);
    } catch (IOException e) {
      throw new UncheckedIOException("DataSet.load: " + from, e);
    }
  }

  // ------------------------------------------------------------------------------- refused

  private static UnsupportedOperationException refused(String method, String why) {
    return new UnsupportedOperationException("DataSet." + method + " is not in ndrt yet: " + why);
  }

  @Override public DataSet reshape(int rows, int cols) { throw refused("reshape", "reshape getFeatures() instead"); }
  @Override public void scaleMinAndMax(double min, double max) { throw refused("scaleMinAndMax", "use NormalizerMinMaxScaler"); }
  @Override public void scale() { throw refused("scale", "use NormalizerMinMaxScaler"); }
  @Override public void addFeatureVector(INDArray toAdd) { throw refused("addFeatureVector", "concatenate the features"); }
  @Override public void addFeatureVector(INDArray f, int example) { throw refused("addFeatureVector", "concatenate the features"); }
  @Override public void setNewNumberOfLabels(int n) { throw refused("setNewNumberOfLabels", "set new labels"); }
  @Override public void setOutcome(int example, int label) { throw refused("setOutcome", "put into getLabels()"); }
  @Override public void filterAndStrip(int[] labels) { throw refused("filterAndStrip", "use filterBy"); }
  @Override public List<DataSet> sortAndBatchByNumLabels() { throw refused("sortAndBatchByNumLabels", "use batchBy"); }
  @Override public List<DataSet> batchByNumLabels() { throw refused("batchByNumLabels", "use batchBy"); }
  @Override public void sortByLabel() { throw refused("sortByLabel", "use filterBy per class"); }
  @Override public void addRow(DataSet d, int i) { throw refused("addRow", "use DataSet.merge"); }
  @Override public void roundToTheNearest(int roundTo) { throw refused("roundToTheNearest", "use Transforms.round"); }

  // ------------------------------------------------------------------------------- printing

  @Override
  public String toString() {
    if (features == null || labels == null) {
      return "";
    }
    StringBuilder b = new StringBuilder();
    b.append("===========INPUT===================\n").append(features.toString().replaceAll(";", "\n"))
        .append("\n=================OUTPUT==================\n").append(labels.toString().replaceAll(";", "\n"));
    if (featuresMask != null) {
      b.append("\n===========INPUT MASK===================\n").append(featuresMask.toString().replaceAll(";", "\n"));
    }
    if (labelsMask != null) {
      b.append("\n===========OUTPUT MASK===================\n").append(labelsMask.toString().replaceAll(";", "\n"));
    }
    return b.toString();
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof DataSet)) {
      return false;
    }
    DataSet d = (DataSet) o;
    return Objects.equals(features, d.features) && Objects.equals(labels, d.labels)
        && Objects.equals(featuresMask, d.featuresMask) && Objects.equals(labelsMask, d.labelsMask);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(new Object[] {features == null ? null : Arrays.toString(features.shape()),
        labels == null ? null : Arrays.toString(labels.shape())});
  }
}
