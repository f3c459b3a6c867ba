package org.deeplearning4j.core.storage;

/** Deeplearning4j's StatsStorage: org.ndrt.ui.StatsStorage under Deeplearning4j's name. */
public interface StatsStorage extends StatsStorageRouter, org.ndrt.ui.StatsStorage {}
