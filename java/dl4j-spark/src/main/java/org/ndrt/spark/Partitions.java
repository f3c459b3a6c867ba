package org.ndrt.spark;

import java.util.Collections;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;

/** Examples per partition of an RDD, and whether they are balanced. */
final class Partitions {
  private Partitions() {}

  /** Examples per partition (one Spark job). */
  static <T> long[] exampleCounts(JavaRDD<T> data, RecordConverter<T> converter) {
    List<Long> counts = data.mapPartitions(it -> {
      long n = 0;
      while (it.hasNext()) {
        n += converter.numExamples(it.next());
      }
      return Collections.singletonList(n).iterator();
    }).collect();
    return counts.stream().mapToLong(Long::longValue).toArray();
  }

  /** Whether the partitions hold the same number of examples, give or take one record of {@code recordSize}. */
  static boolean balanced(long[] counts, int partitions, long recordSize) {
    if (counts.length != partitions) {
      return false;
    }
    long min = Long.MAX_VALUE;
    long max = 0;
    for (long c : counts) {
      min = Math.min(min, c);
      max = Math.max(max, c);
    }
    return max - min <= recordSize;
  }

  static long sum(long[] v) {
    long s = 0;
    for (long x : v) {
      s += x;
    }
    return s;
  }
}
