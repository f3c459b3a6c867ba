/**
 * Early stopping, like Deeplearning4j's: train a network epoch by epoch, score it on held-out data,
 * keep the best model, and stop when a termination condition fires.
 *
 * <pre>{@code
 * EarlyStoppingConfiguration conf = new EarlyStoppingConfiguration.Builder()
 *     .epochTerminationConditions(new MaxEpochsTerminationCondition(30),
 *         new ScoreImprovementEpochTerminationCondition(5))
 *     .iterationTerminationConditions(new MaxTimeIterationTerminationCondition(20, TimeUnit.MINUTES),
 *         new InvalidScoreIterationTerminationCondition())
 *     .scoreCalculator(new DataSetLossCalculator(testIterator, true))
 *     .modelSaver(new LocalFileModelSaver(new File("runs/es")))
 *     .build();
 * EarlyStoppingResult result = new EarlyStoppingTrainer(conf, net, trainIterator).fit();
 * try (MultiLayerNetwork best = result.getBestModel()) {
 *   ...
 * }
 * }</pre>
 *
 * <p>The network may be a MultiLayerNetwork or a ComputationGraph (one input and one output for
 * DataSet iterators): everything here is typed on {@link org.ndrt.nn.Model}, and the getters that
 * return a model are generic methods ({@code ComputationGraph best = result.getBestModel()}).
 *
 * <p>Epochs are numbered from 0. Nothing here is thread-safe: one trainer runs on one thread.
 */
package org.ndrt.earlystopping;
