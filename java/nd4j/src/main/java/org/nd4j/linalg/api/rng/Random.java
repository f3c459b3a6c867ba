package org.nd4j.linalg.api.rng;

import org.nd4j.linalg.api.ndarray.INDArray;

/** ND4J's random generator: a seed, scalar draws, and arrays drawn by the runtime. */
public interface Random extends AutoCloseable {
  void setSeed(int seed);

  void setSeed(int[] seed);

  void setSeed(long seed);

  long getSeed();

  void nextBytes(byte[] bytes);

  int nextInt();

  int nextInt(int n);

  int nextInt(int a, int n);

  long nextLong();

  boolean nextBoolean();

  float nextFloat();

  double nextDouble();

  double nextGaussian();

  INDArray nextGaussian(int[] shape);

  INDArray nextGaussian(long[] shape);

  INDArray nextGaussian(char order, int[] shape);

  INDArray nextGaussian(char order, long[] shape);

  INDArray nextDouble(int[] shape);

  INDArray nextDouble(long[] shape);

  INDArray nextDouble(char order, int[] shape);

  INDArray nextDouble(char order, long[] shape);

  INDArray nextFloat(int[] shape);

  INDArray nextFloat(long[] shape);

  INDArray nextFloat(char order, int[] shape);

  INDArray nextFloat(char order, long[] shape);

  INDArray nextInt(int[] shape);

  INDArray nextInt(long[] shape);

  INDArray nextInt(int n, int[] shape);

  INDArray nextInt(int n, long[] shape);

  long getPosition();

  void reSeed();

  void reSeed(long seed);

  @Override
  void close();
}
