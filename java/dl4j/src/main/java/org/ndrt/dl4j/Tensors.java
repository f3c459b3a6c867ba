package org.ndrt.dl4j;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.cpu.nativecpu.NDArray;
import org.ndrt.DType;
import org.ndrt.Tensor;
import org.ndrt.nd4j.ArrayCore;

/** INDArray and org.ndrt tensors across the drop-in: no copies but the cast of non-f32 inputs. */
public final class Tensors {
  private Tensors() {}

  /** A handle of the array's tensor that the caller closes (another handle, no copy; cast to f32 if needed). */
  public static Tensor in(INDArray a) {
    if (a == null) {
      return null;
    }
    Tensor t = ArrayCore.tensorOf(a);
    return t.dtype() == DType.F32 ? t.share() : t.cast(DType.F32);
  }

  /** The tensor as an INDArray that owns it. */
  public static INDArray out(Tensor t) {
    return new NDArray(t);
  }

  /** An ND4J DataSet as org.ndrt's (handles over the same storage; closing it leaves the INDArrays alone). */
  public static org.ndrt.data.DataSet dataSet(org.nd4j.linalg.dataset.api.DataSet ds) {
    return new org.ndrt.data.DataSet(in(ds.getFeatures()), in(ds.getLabels()), in(ds.getFeaturesMaskArray()),
        in(ds.getLabelsMaskArray()));
  }

  /** An ND4J iterator as org.ndrt's: each DataSet converted by {@link #dataSet}. */
  public static org.ndrt.data.DataSetIterator iterator(org.nd4j.linalg.dataset.api.iterator.DataSetIterator it) {
    return new org.ndrt.data.DataSetIterator() {
      @Override
      public boolean hasNext() {
        return it.hasNext();
      }

      @Override
      public org.ndrt.data.DataSet next() {
        return dataSet(it.next());
      }

      @Override
      public void reset() {
        if (it.resetSupported()) {
          it.reset();
        }
      }

      /** -1 (unknown) where the iterator has no fixed batch size (ND4J's ExistingMiniBatchDataSetIterator throws). */
      @Override
      public int batchSize() {
        try {
          return it.batch();
        } catch (UnsupportedOperationException e) {
          return -1;
        }
      }

      @Override
      public long numExamples() {
        return -1;
      }

      @Override
      public int totalOutcomes() {
        return it.totalOutcomes();
      }
    };
  }

  /** Each array by {@link #in} (null arrays or entries stay null). */
  public static Tensor[] in(INDArray[] a) {
    if (a == null) {
      return null;
    }
    Tensor[] t = new Tensor[a.length];
    for (int i = 0; i < a.length; ++i) {
      t[i] = in(a[i]);
    }
    return t;
  }

  /** Each tensor as an INDArray that owns it. */
  public static INDArray[] out(Tensor[] t) {
    INDArray[] a = new INDArray[t.length];
    for (int i = 0; i < t.length; ++i) {
      a[i] = out(t[i]);
    }
    return a;
  }

  /**
   * An ND4J MultiDataSet as org.ndrt's (handles over the same storage; closing it leaves the INDArrays
   * alone). Labels may be absent (an empty array) for what only runs forward.
   */
  public static org.ndrt.data.MultiDataSet multiDataSet(org.nd4j.linalg.dataset.api.MultiDataSet ds) {
    INDArray[] labels = ds.getLabels();
    return new org.ndrt.data.MultiDataSet(in(ds.getFeatures()), labels == null ? new Tensor[0] : in(labels),
        in(ds.getFeaturesMaskArrays()), labels == null ? null : in(ds.getLabelsMaskArrays()));
  }

  /** An ND4J MultiDataSetIterator as org.ndrt's: each MultiDataSet converted by {@link #multiDataSet}. */
  public static org.ndrt.data.MultiDataSetIterator iterator(org.nd4j.linalg.dataset.api.iterator.MultiDataSetIterator it) {
    return new org.ndrt.data.MultiDataSetIterator() {
      @Override
      public boolean hasNext() {
        return it.hasNext();
      }

      @Override
      public org.ndrt.data.MultiDataSet next() {
        return multiDataSet(it.next());
      }

      @Override
      public void reset() {
        if (it.resetSupported()) {
          it.reset();
        }
      }
    };
  }
}
