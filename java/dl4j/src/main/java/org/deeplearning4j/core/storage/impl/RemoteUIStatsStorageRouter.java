package org.deeplearning4j.core.storage.impl;

import org.deeplearning4j.core.storage.StatsStorageRouter;

/**
 * Deeplearning4j's RemoteUIStatsStorageRouter: records POSTed to another process's UIServer
 * (which called enableRemoteListener); org.ndrt.ui.RemoteStatsRouter under Deeplearning4j's name.
 */
public class RemoteUIStatsStorageRouter extends org.ndrt.ui.RemoteStatsRouter implements StatsStorageRouter {
  /** Posts to {@code address}, e.g. "http://localhost:9000". */
  public RemoteUIStatsStorageRouter(String address) {
    super(address);
  }

  /** {@code maxRetryCount} tries per record (the delay arguments are not used: ndrt backs off 0.2 s, doubling). */
  public RemoteUIStatsStorageRouter(String address, int maxRetryCount, long retryDelayMS, double retryBackoffFactor) {
    super(address, Math.max(1, maxRetryCount));
  }
}
