package org.nd4j.shade.guava.collect;

import java.util.Iterator;
import java.util.function.BiConsumer;
import java.util.stream.Stream;

/**
 * The part of Guava's Streams (shaded into ND4J as org.nd4j.shade.guava) that programs written for
 * ND4J call: ndrt ships no Guava, so these are ndrt's own, with Guava's behaviour.
 */
public final class Streams {
  private Streams() {}

  /**
   * Calls {@code consumer} with the elements of both streams pairwise, in order, until the shorter
   * one ends (Guava's forEachPair; sequential).
   */
  public static <A, B> void forEachPair(Stream<A> streamA, Stream<B> streamB, BiConsumer<? super A, ? super B> consumer) {
    if (consumer == null) {
      throw new NullPointerException("consumer");
    }
    Iterator<A> a = streamA.iterator();
    Iterator<B> b = streamB.iterator();
    while (a.hasNext() && b.hasNext()) {
      consumer.accept(a.next(), b.next());
    }
  }
}
