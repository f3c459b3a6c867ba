package org.ndrt.spark;

import java.io.Serializable;
import java.util.Collections;
import java.util.Iterator;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.broadcast.Broadcast;
import org.ndrt.nn.Model;

/**
 * Inference-side jobs on an RDD with the driver's network: each task takes a replica holding the
 * network's current parameters (broadcast once per job) and computes something from its partition's
 * records; the results are reduced with {@code merge}. The Spark networks' evaluate and score run on it.
 */
public final class SparkModels {
  private SparkModels() {}

  /**
   * {@code fn} on every non-empty partition, reduced with {@code merge}; {@code empty} when the RDD has
   * no records.
   */
  public static <T, R extends Serializable> R mapPartitions(JavaSparkContext sc, Model model, JavaRDD<T> data,
      ReplicaFunction<T, R> fn, Function2<R, R, R> merge, R empty) throws Exception {
    if (sc == null || model == null || data == null || fn == null || merge == null) {
      throw new IllegalArgumentException("the Spark context, network, data and functions must not be null");
    }
    ModelSpec spec = ModelSpec.of(model);
    Broadcast<ModelState> state = sc.broadcast(ModelState.of(model, false));
    try {
      java.util.List<R> parts = data.mapPartitions(records -> one(spec, state.value(), records, fn)).collect();
      R all = empty;
      for (R r : parts) {
        all = all == empty ? r : merge.call(all, r);
      }
      return all;
    } finally {
      state.destroy();
    }
  }

  private static <T, R> Iterator<R> one(ModelSpec spec, ModelState state, Iterator<T> records,
      ReplicaFunction<T, R> fn) throws Exception {
    if (!records.hasNext()) {
      return Collections.emptyIterator();
    }
    Model m = Replicas.borrow(spec);
    try {
      state.applyTo(m);
      R r = fn.apply(m, records);
      Replicas.giveBack(spec, m);
      return Collections.singletonList(r).iterator();
    } catch (Exception | Error e) {
      m.close();
      throw e;
    }
  }
}
