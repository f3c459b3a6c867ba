package org.deeplearning4j.core.storage;

/**
 * Deeplearning4j's StatsStorageRouter: where a StatsListener sends its records; org.ndrt.ui's
 * router under Deeplearning4j's name (records are org.ndrt.ui.StatsRecord, not Persistable).
 */
public interface StatsStorageRouter extends org.ndrt.ui.StatsRouter {}
