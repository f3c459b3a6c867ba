package org.ndrt.dl4j.datasets;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.datavec.api.io.WritableConverter;
import org.datavec.api.io.converters.WritableConverterException;
import org.datavec.api.writable.NDArrayWritable;
import org.datavec.api.writable.Writable;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Records (lists of DataVec Writables) to ND4J minibatches, for the Deeplearning4j record-reader
 * iterators. Everything is built as float[] on the Java side and handed to Nd4j.create once per
 * array: one native call per minibatch, not one per value. Errors name the record (its number since
 * the iterator's reset) and the column, since the user has to find it in their file.
 */
public final class RecordBatches {
  private RecordBatches() {}

  /** Each record through the converter. */
  public static List<List<Writable>> convert(List<List<Writable>> records, WritableConverter converter) {
    List<List<Writable>> out = new ArrayList<>(records.size());
    for (List<Writable> r : records) {
      List<Writable> c = new ArrayList<>(r.size());
      for (Writable w : r) {
        try {
          c.add(converter.convert(w));
        } catch (WritableConverterException e) {
          throw new IllegalStateException("WritableConverter failed on " + w + ": " + e.getMessage(), e);
        }
      }
      out.add(c);
    }
    return out;
  }

  /**
   * One minibatch: features are the columns outside labelFrom..labelTo (all when labelFrom is
   * negative); labels one-hot over numClasses (when positive), or the columns labelFrom..labelTo as
   * values (numClasses 0 or negative: regression), or a copy of the features (labelFrom negative,
   * as Deeplearning4j). {@code first}
   * numbers the first record for messages.
   */
  public static DataSet toDataSet(List<List<Writable>> records, int labelFrom, int labelTo, int numClasses, long first,
      List<Serializable> meta) {
    int mb = records.size();
    if (mb == 0) {
      throw new IllegalStateException("RecordReaderDataSetIterator: the record reader gave no records");
    }
    List<Writable> r0 = records.get(0);
    int width = r0.size();
    if (labelFrom >= width || labelTo >= width) {
      throw new IllegalStateException("RecordReaderDataSetIterator: label index " + labelFrom
          + (labelTo != labelFrom ? ".." + labelTo : "") + " is outside record " + first + " (" + width
          + " values: indices 0.." + (width - 1) + ")");
    }
    List<Integer> featureCols = new ArrayList<>();
    for (int c = 0; c < width; c++) {
      if (labelFrom < 0 || c < labelFrom || c > labelTo) {
        featureCols.add(c);
      }
    }
    INDArray features;
    if (featureCols.size() == 1 && r0.get(featureCols.get(0)) instanceof NDArrayWritable) {
      features = stackArrays(records, featureCols.get(0), first);
    } else {
      features = rows(records, featureCols, first, width, "features");
    }
    INDArray labels;
    if (labelFrom < 0) {
      // No label asked for: Deeplearning4j serves all columns as labels too (a copy), as an autoencoder wants.
      labels = features.dup();
    } else {
      if (numClasses >= 1) {
        float[] onehot = new float[mb * numClasses];
        for (int i = 0; i < mb; i++) {
          int cls = classIndex(records.get(i).get(labelFrom), numClasses, "record " + (first + i), labelFrom);
          onehot[i * numClasses + cls] = 1f;
        }
        labels = Nd4j.create(onehot, new long[] {mb, numClasses});
      } else {
        List<Integer> labelCols = new ArrayList<>();
        for (int c = labelFrom; c <= labelTo; c++) {
          labelCols.add(c);
        }
        labels = rows(records, labelCols, first, width, "labels");
      }
    }
    DataSet ds = new DataSet(features, labels);
    if (meta != null) {
      ds.setExampleMetaData(meta);
    }
    return ds;
  }

  /** The class index a label writable holds, checked against 0..numClasses-1; {@code where} names it. */
  public static int classIndex(Writable w, int numClasses, String where, int column) {
    int cls;
    try {
      // Through a double, as Deeplearning4j reads "1.0" (and truncates "0.5" to class 0).
      double d = w.toDouble();
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        throw new NumberFormatException("not a finite number");
      }
      cls = d < 0 ? -1 : (int) d;
    } catch (RuntimeException e) {
      throw new IllegalStateException("Label of " + where + " (column " + column + ") is not a class index: '" + w
          + "' (" + e.getMessage() + ")", e);
    }
    if (cls < 0 || cls >= numClasses) {
      throw new IllegalStateException("Label of " + where + " (column " + column + ") is class index " + cls
          + ", outside 0.." + (numClasses - 1) + " for numClasses = " + numClasses
          + " (classes are zero-indexed: only values 0 to numClasses-1 are valid)");
    }
    return cls;
  }

  /** Rows of the given columns (an NDArrayWritable column contributes all its values), f32 [mb, n]. */
  private static INDArray rows(List<List<Writable>> records, List<Integer> cols, long first, int width, String what) {
    int mb = records.size();
    int n = rowWidth(records.get(0), cols);
    float[] out = new float[mb * n];
    for (int i = 0; i < mb; i++) {
      List<Writable> r = records.get(i);
      if (r.size() != width) {
        throw new IllegalStateException("RecordReaderDataSetIterator: record " + (first + i) + " has " + r.size()
            + " values, record " + first + " has " + width + " (all records must have the same number of columns)");
      }
      int at = i * n;
      for (int c : cols) {
        at = put(r.get(c), out, at, i * n + n, "record " + (first + i), c, what);
      }
    }
    return Nd4j.create(out, new long[] {mb, n});
  }

  /** Values of one step/record over the given columns, written into out at {@code at}; returns the end. */
  public static int put(Writable w, float[] out, int at, int limit, String where, int column, String what) {
    if (w instanceof NDArrayWritable) {
      float[] v = ((NDArrayWritable) w).get().ravel().toFloatVector();
      if (at + v.length > limit) {
        throw new IllegalStateException(where + ", column " + column + ": an array of " + v.length
            + " values where the first record had fewer (" + what + ")");
      }
      System.arraycopy(v, 0, out, at, v.length);
      return at + v.length;
    }
    if (at >= limit) {
      throw new IllegalStateException(where + ", column " + column + ": more " + what + " values than the first record");
    }
    try {
      out[at] = (float) w.toDouble();
    } catch (RuntimeException e) {
      throw new IllegalStateException(where + ", column " + column + ": '" + w + "' is not a number (" + what + ")", e);
    }
    return at + 1;
  }

  /** How many values the given columns of a record hold. */
  public static int rowWidth(List<Writable> r, List<Integer> cols) {
    int n = 0;
    for (int c : cols) {
      Writable w = r.get(c);
      n += w instanceof NDArrayWritable ? (int) ((NDArrayWritable) w).get().length() : 1;
    }
    return n;
  }

  /**
   * One array per record (an image, [1, c, h, w] or [c, h, w]) stacked along a new first dimension:
   * [mb, c, h, w]; a leading 1 is dropped first, as Deeplearning4j does.
   */
  private static INDArray stackArrays(List<List<Writable>> records, int col, long first) {
    INDArray a0 = ((NDArrayWritable) records.get(0).get(col)).get();
    long[] shape = a0.shape();
    long[] per = shape.length >= 2 && shape[0] == 1 ? Arrays.copyOfRange(shape, 1, shape.length) : shape;
    int len = (int) a0.length();
    int mb = records.size();
    float[] out = new float[mb * len];
    for (int i = 0; i < mb; i++) {
      Writable w = records.get(i).get(col);
      if (!(w instanceof NDArrayWritable) || ((NDArrayWritable) w).get().length() != len) {
        throw new IllegalStateException("RecordReaderDataSetIterator: record " + (first + i) + ", column " + col
            + ": expected an array of shape " + Arrays.toString(shape) + " as in record " + first + ", got " + w);
      }
      System.arraycopy(((NDArrayWritable) w).get().ravel().toFloatVector(), 0, out, i * len, len);
    }
    long[] full = new long[per.length + 1];
    full[0] = mb;
    System.arraycopy(per, 0, full, 1, per.length);
    return Nd4j.create(out, full);
  }
}
