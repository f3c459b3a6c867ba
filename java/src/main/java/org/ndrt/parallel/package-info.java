/**
 * Data-parallel training: {@link org.ndrt.parallel.ParallelWrapper} trains replicas of a network on
 * several worker threads (one device each) and averages their parameters, as Deeplearning4j's
 * ParallelWrapper. The early-stopping variant is {@link org.ndrt.earlystopping.EarlyStoppingParallelTrainer}.
 */
package org.ndrt.parallel;
