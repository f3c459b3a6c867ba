package org.ndrt.nd4j;

import java.util.List;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.api.DataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.dataset.api.preprocessor.DataNormalization;
import org.nd4j.linalg.exception.ND4JIllegalStateException;
import org.nd4j.linalg.factory.Nd4j;

/**
 * What NormalizerStandardize and NormalizerMinMaxScaler share (ND4J's AbstractDataSetNormalizer):
 * per-feature statistics over dimension 1 (a column of 2-D data, a feature of [N, F, T] time series,
 * a channel of [N, C, H, W] images; masked steps left out), gathered batch by batch, and in-place
 * transforms broadcast along dimension 1. Statistics are combined in double and kept as [1, F]
 * arrays of the data's type.
 */
public abstract class BaseNormalizer implements DataNormalization {
  private static final long serialVersionUID = 1L;
  private boolean fitLabels;
  protected Stats featureStats;
  protected Stats labelStats;

  /** Running per-feature statistics; subclasses read what they need. */
  public static final class Stats {
    public long count;
    public double[] mean;
    public double[] m2; // sum of squared deviations (Chan et al.'s parallel form)
    public double[] min;
    public double[] max;
    public DataType type;

    void add(INDArray data2d) {
      if (data2d == null) {
        return; // fully masked
      }
      long n = data2d.size(0);
      if (n == 0) {
        return;
      }
      double[] bMean = data2d.mean(0).castTo(DataType.DOUBLE).toDoubleVector();
      double[] bVar = data2d.var(false, 0).castTo(DataType.DOUBLE).toDoubleVector();
      double[] bMin = data2d.min(0).castTo(DataType.DOUBLE).toDoubleVector();
      double[] bMax = data2d.max(0).castTo(DataType.DOUBLE).toDoubleVector();
      if (mean == null) {
        type = data2d.dataType();
        count = n;
        mean = bMean;
        m2 = new double[bVar.length];
        for (int i = 0; i < bVar.length; i++) {
          m2[i] = bVar[i] * n;
        }
        min = bMin;
        max = bMax;
        return;
      }
      if (bMean.length != mean.length) {
        throw new IllegalStateException("Data has " + bMean.length + " features, earlier batches had " + mean.length);
      }
      long total = count + n;
      for (int i = 0; i < mean.length; i++) {
        double delta = bMean[i] - mean[i];
        m2[i] += bVar[i] * n + delta * delta * count * n / total;
        mean[i] += delta * n / total;
        min[i] = Math.min(min[i], bMin[i]);
        max[i] = Math.max(max[i], bMax[i]);
      }
      count = total;
    }

    public INDArray row(double[] v) {
      return Nd4j.create(v, new long[] {1, v.length}, 'c').castTo(type);
    }
  }

  @Override
  public void fitLabel(boolean fitLabels) {
    this.fitLabels = fitLabels;
  }

  @Override
  public boolean isFitLabel() {
    return fitLabels;
  }

  @Override
  public void fit(DataSet dataSet) {
    featureStats = stats(List.of(dataSet), true);
    if (fitLabels) {
      labelStats = stats(List.of(dataSet), false);
    }
    fitted();
  }

  /** Goes through the iterator once (reset before and after), as ND4J does. */
  @Override
  public void fit(DataSetIterator iterator) {
    Stats f = new Stats(), l = new Stats();
    iterator.reset();
    while (iterator.hasNext()) {
      DataSet ds = iterator.next();
      f.add(tailor2d(ds.getFeatures(), ds.getFeaturesMaskArray()));
      if (fitLabels) {
        l.add(tailor2d(ds.getLabels(), ds.getLabelsMaskArray()));
      }
    }
    iterator.reset();
    featureStats = checked(f);
    labelStats = fitLabels ? checked(l) : null;
    fitted();
  }

  private static Stats stats(List<DataSet> data, boolean features) {
    Stats s = new Stats();
    for (DataSet ds : data) {
      s.add(features ? tailor2d(ds.getFeatures(), ds.getFeaturesMaskArray())
          : tailor2d(ds.getLabels(), ds.getLabelsMaskArray()));
    }
    return checked(s);
  }

  private static Stats checked(Stats s) {
    if (s.mean == null) {
      throw new RuntimeException("No data was added, statistics cannot be determined");
    }
    return s;
  }

  /** Called when statistics are new: subclasses derive their arrays. */
  protected abstract void fitted();

  /** {@code a} (in place) from data to normalized, with {@code features} or label statistics. */
  protected abstract void forward(INDArray a, boolean features);

  /** {@code a} (in place) from normalized back to data. */
  protected abstract void backward(INDArray a, boolean features);

  /** [rows, F] of {@code data}, masked rows dropped ({@link DataSets#to2d}); per-output masks refused. */
  public static INDArray tailor2d(INDArray data, INDArray mask) {
    if (mask != null && (data.rank() == 4 || data.rank() == 2 && !mask.isColumnVectorOrScalar())) {
      throw new UnsupportedOperationException("normalizer statistics with a per-output mask of shape "
          + java.util.Arrays.toString(mask.shape()) + " are not in ndrt yet");
    }
    return DataSets.to2d(data, mask);
  }

  /** [1, F] statistics shaped to broadcast along dimension 1 of {@code a}. */
  protected static INDArray along1(INDArray row, INDArray a) {
    INDArray r = row.castTo(a.dataType());
    if (a.rank() <= 2) {
      return r;
    }
    long[] s = new long[a.rank()];
    java.util.Arrays.fill(s, 1);
    s[1] = r.length();
    return r.reshape(s);
  }

  /** Zeroes the masked steps/examples, as ND4J does after transforming. */
  protected static void zeroMasked(INDArray a, INDArray mask) {
    if (mask == null) {
      return;
    }
    if (a.rank() == 3 && mask.rank() == 2) {
      a.muli(mask.castTo(a.dataType()).reshape(mask.size(0), 1, mask.size(1)));
    } else if (mask.isColumnVectorOrScalar()) {
      a.muliColumnVector(mask.castTo(a.dataType()));
    } else {
      a.muli(mask.castTo(a.dataType()));
    }
  }

  /** Whether feature (or label) statistics are known: fitted or given. */
  protected abstract boolean hasStats(boolean features);

  private void requireFit(boolean features, String what) {
    if (!hasStats(features)) {
      throw new ND4JIllegalStateException(what + " statistics were not yet calculated. Make sure to run fit() first.");
    }
  }

  @Override
  public void preProcess(DataSet toPreProcess) {
    transform(toPreProcess.getFeatures(), toPreProcess.getFeaturesMaskArray());
    transformLabel(toPreProcess.getLabels(), toPreProcess.getLabelsMaskArray());
  }

  @Override
  public void transform(DataSet toPreProcess) {
    preProcess(toPreProcess);
  }

  @Override
  public void transform(INDArray features) {
    transform(features, null);
  }

  @Override
  public void transform(INDArray features, INDArray featuresMask) {
    requireFit(true, "Features");
    forward(features, true);
    zeroMasked(features, featuresMask);
  }

  @Override
  public void transformLabel(INDArray labels) {
    transformLabel(labels, null);
  }

  @Override
  public void transformLabel(INDArray labels, INDArray labelsMask) {
    if (fitLabels) {
      requireFit(false, "Labels");
      forward(labels, false);
      zeroMasked(labels, labelsMask);
    }
  }

  @Override
  public void revert(DataSet data) {
    revertFeatures(data.getFeatures(), data.getFeaturesMaskArray());
    revertLabels(data.getLabels(), data.getLabelsMaskArray());
  }

  @Override
  public void revertFeatures(INDArray features) {
    revertFeatures(features, null);
  }

  @Override
  public void revertFeatures(INDArray features, INDArray featuresMask) {
    requireFit(true, "Features");
    backward(features, true);
    zeroMasked(features, featuresMask);
  }

  @Override
  public void revertLabels(INDArray labels) {
    revertLabels(labels, null);
  }

  @Override
  public void revertLabels(INDArray labels, INDArray labelsMask) {
    if (fitLabels) {
      requireFit(false, "Labels");
      backward(labels, false);
      zeroMasked(labels, labelsMask);
    }
  }
}
