package org.ndrt.spark;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.HashPartitioner;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.storage.StorageLevel;
import scala.Tuple2;

/**
 * The training RDD as a trainer reads it round after round: copied once through a Spark shuffle into one
 * partition per worker and cached, then reused while the same RDD is fitted again (a program calls fit
 * once per epoch). The shuffle is what keeps every round cheap: tasks over an RDD made by
 * {@code sc.parallelize} carry their partition's records in the task itself (tens of MB for MNIST, every
 * round), while tasks over the shuffled copy carry only its index; it is also Spark's way to lose nothing
 * when an executor goes (the copy is recomputed from the shuffle or from the source). Deeplearning4j
 * exports the RDD to files for the same reason. The records are dealt round-robin when the partitions are
 * to be balanced, else each stays in its partition in its order. {@link #release} drops the copy.
 */
final class StagedData<T> {
  final JavaRDD<T> rdd;
  final long[] counts;
  private final int sourceId;
  private final int workers;

  private StagedData(JavaRDD<T> rdd, long[] counts, int sourceId, int workers) {
    this.rdd = rdd;
    this.counts = counts;
    this.sourceId = sourceId;
    this.workers = workers;
  }

  /** Whether this is the staged copy of {@code data} made for {@code workers} workers. */
  boolean isFor(JavaRDD<?> data, int workers) {
    return data.rdd().id() == sourceId && this.workers == workers;
  }

  /**
   * Stages {@code data} for {@code workers} workers: round-robin into that many partitions when {@code
   * balance}, else in its own partitions; cached at {@code level}; examples counted per partition (which
   * fills the cache).
   */
  static <T> StagedData<T> stage(JavaRDD<T> data, RecordConverter<T> converter, int workers, boolean balance,
      StorageLevel level) {
    JavaPairRDD<Long, T> keyed;
    int n;
    if (balance) {
      n = workers;
      keyed = data.zipWithIndex().mapToPair(t -> new Tuple2<>(t._2() % n, t._1()));
    } else {
      n = data.getNumPartitions();
      keyed = data.mapPartitionsWithIndex((p, it) -> keyedBy((long) p, it), true).mapToPair(t -> t);
    }
    JavaRDD<T> copy = keyed.partitionBy(new HashPartitioner(n)).values();
    copy.persist(level);
    try {
      return new StagedData<>(copy, Partitions.exampleCounts(copy, converter), data.rdd().id(), workers);
    } catch (RuntimeException e) {
      copy.unpersist(false);
      throw e;
    }
  }

  private static <T> Iterator<Tuple2<Long, T>> keyedBy(Long key, Iterator<T> it) {
    List<Tuple2<Long, T>> out = new ArrayList<>();
    while (it.hasNext()) {
      out.add(new Tuple2<>(key, it.next()));
    }
    return out.iterator();
  }

  void release() {
    rdd.unpersist(false);
  }

  /** A trainer's last staged copy, kept for the next fit on the same RDD. */
  static final class Cache {
    /** Decides, when a new RDD is staged, whether its records are dealt round-robin. */
    interface Balance<T> {
      boolean balance(JavaRDD<T> data, RecordConverter<T> converter, int workers);
    }

    private StagedData<?> last;

    /** The copy of {@code data} for {@code workers}: the kept one when it is for that RDD, else a new one. */
    @SuppressWarnings("unchecked")
    <T> StagedData<T> get(JavaRDD<T> data, RecordConverter<T> converter, int workers, Balance<T> balance,
        StorageLevel level) {
      if (last != null && last.isFor(data, workers)) {
        return (StagedData<T>) last;
      }
      release();
      StagedData<T> s = stage(data, converter, workers, balance.balance(data, converter, workers), level);
      last = s;
      return s;
    }

    void release() {
      if (last != null) {
        last.release();
        last = null;
      }
    }
  }
}
