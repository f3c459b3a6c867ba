package org.ndrt.spark;

import java.io.Serializable;
import java.util.Iterator;
import org.ndrt.nn.Model;

/** What a Spark task computes from its partition's records with a replica of the driver's network. */
@FunctionalInterface
public interface ReplicaFunction<T, R> extends Serializable {
  R apply(Model replica, Iterator<T> records) throws Exception;
}
