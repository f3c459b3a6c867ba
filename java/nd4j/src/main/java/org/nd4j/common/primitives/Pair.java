package org.nd4j.common.primitives;

import java.io.Serializable;
import java.util.Objects;

/** ND4J's mutable pair (key, value), also read as (first, second) and (left, right). */
public class Pair<K, V> implements Serializable {
  private static final long serialVersionUID = 1L;
  protected K key;
  protected V value;

  public Pair() {}

  public Pair(K key, V value) {
    this.key = key;
    this.value = value;
  }

  public static <T, E> Pair<T, E> of(T key, E value) {
    return new Pair<>(key, value);
  }

  public static <T, E> Pair<T, E> makePair(T key, E value) {
    return new Pair<>(key, value);
  }

  public static <T, E> Pair<T, E> create(T key, E value) {
    return new Pair<>(key, value);
  }

  public K getKey() { return key; }
  public V getValue() { return value; }
  public K getFirst() { return key; }
  public V getSecond() { return value; }
  public K getLeft() { return key; }
  public V getRight() { return value; }
  public void setKey(K key) { this.key = key; }
  public void setValue(V value) { this.value = value; }
  public void setFirst(K key) { this.key = key; }
  public void setSecond(V value) { this.value = value; }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Pair)) {
      return false;
    }
    Pair<?, ?> p = (Pair<?, ?>) o;
    return Objects.equals(key, p.key) && Objects.equals(value, p.value);
  }

  @Override
  public int hashCode() {
    return Objects.hash(key, value);
  }

  @Override
  public String toString() {
    return "Pair(key=" + key + ", value=" + value + ")";
  }
}
