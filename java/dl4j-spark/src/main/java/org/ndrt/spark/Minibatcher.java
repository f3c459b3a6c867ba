package org.ndrt.spark;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.data.MultiDataSet;

/**
 * A partition's records as minibatches of {@code batchSize} examples (the last one may be smaller), as
 * Deeplearning4j's workers fit {@code batchSizePerWorker} examples whatever the RDD's objects hold. A
 * record of exactly one minibatch passes as it is; otherwise records are cut (views) and joined (one
 * concat per array). {@link #skip} passes over examples without converting the records it skips whole.
 */
final class Minibatcher<T> implements Iterator<MultiDataSet> {
  private final Iterator<T> records;
  private final RecordConverter<T> converter;
  private final int batchSize;
  private MultiDataSet current;  // a record being cut, from example currentFrom on
  private int currentFrom;

  Minibatcher(Iterator<T> records, RecordConverter<T> converter, int batchSize) {
    if (batchSize <= 0) {
      throw new IllegalArgumentException("batch size must be > 0, got " + batchSize);
    }
    this.records = records;
    this.converter = converter;
    this.batchSize = batchSize;
  }

  /** Passes over {@code examples} examples. */
  void skip(long examples) {
    while (examples > 0 && (current != null || records.hasNext())) {
      if (current == null) {
        T r = records.next();
        int n = converter.numExamples(r);
        if (n <= examples) {
          examples -= n;
          continue;
        }
        current = converter.convert(r);
        currentFrom = 0;
      }
      int left = current.numExamples() - currentFrom;
      int take = (int) Math.min(left, examples);
      currentFrom += take;
      examples -= take;
      if (currentFrom == current.numExamples()) {
        current.close();
        current = null;
      }
    }
  }

  @Override
  public boolean hasNext() {
    return current != null || records.hasNext();
  }

  @Override
  public MultiDataSet next() {
    if (!hasNext()) {
      throw new NoSuchElementException("no more minibatches in this partition");
    }
    List<MultiDataSet> parts = new ArrayList<>();
    int need = batchSize;
    try {
      while (need > 0 && hasNext()) {
        if (current == null) {
          current = converter.convert(records.next());
          currentFrom = 0;
          if (current.numExamples() == batchSize && need == batchSize) {
            MultiDataSet whole = current;
            current = null;
            return whole;
          }
        }
        int take = Math.min(current.numExamples() - currentFrom, need);
        parts.add(current.rows(currentFrom, currentFrom + take));
        currentFrom += take;
        need -= take;
        if (currentFrom == current.numExamples()) {
          current.close();  // the parts are views: the storage lives on in them
          current = null;
        }
      }
      return parts.size() == 1 ? parts.remove(0) : join(parts);
    } finally {
      for (MultiDataSet p : parts) {
        p.close();
      }
    }
  }

  /** Closes the record being cut, if any. */
  void close() {
    if (current != null) {
      current.close();
      current = null;
    }
  }

  private static MultiDataSet join(List<MultiDataSet> parts) {
    MultiDataSet first = parts.get(0);
    return new MultiDataSet(join(parts, 0, first.features().length, "features"),
        join(parts, 1, first.labels().length, "labels"), join(parts, 2, first.features().length, "features mask"),
        join(parts, 3, first.labels().length, "labels mask"));
  }

  private static Tensor[] join(List<MultiDataSet> parts, int which, int count, String what) {
    Tensor[] out = new Tensor[count];
    for (int i = 0; i < count; ++i) {
      Tensor[] xs = new Tensor[parts.size()];
      int present = 0;
      for (int p = 0; p < xs.length; ++p) {
        MultiDataSet d = parts.get(p);
        Tensor[] arrays = which == 0 ? d.features() : which == 1 ? d.labels() : which == 2 ? d.featuresMasks()
            : d.labelsMasks();
        if (arrays.length != count) {
          throw new IllegalArgumentException("records differ in their number of " + what + " arrays: " + count
              + " and " + arrays.length);
        }
        xs[p] = arrays[i];
        present += xs[p] == null ? 0 : 1;
      }
      if (present == 0) {
        continue;
      }
      if (present != xs.length) {
        throw new IllegalArgumentException("cannot join records into a minibatch where some have a " + what
            + " and some have none");
      }
      out[i] = Ops.concat(xs, 0);
    }
    return out;
  }
}
