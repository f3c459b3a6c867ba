package org.deeplearning4j.ui.api;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import org.deeplearning4j.core.storage.StatsStorage;
import org.deeplearning4j.core.storage.StatsStorageRouter;
import org.deeplearning4j.ui.model.storage.InMemoryStatsStorage;

/**
 * Deeplearning4j's UIServer: one dashboard per JVM ({@link #getInstance()}) over org.ndrt.ui.UIServer,
 * at http://localhost:9000/train. The port comes from the system property {@code
 * org.deeplearning4j.ui.port} (Deeplearning4j's; default 9000); it listens on 127.0.0.1 unless
 * {@code org.ndrt.ui.address} names another address (e.g. 0.0.0.0 to be reachable from other hosts).
 */
public final class UIServer {
  public static final String PORT_PROPERTY = "org.deeplearning4j.ui.port";
  public static final String ADDRESS_PROPERTY = "org.ndrt.ui.address";
  public static final int DEFAULT_PORT = 9000;
  private static UIServer instance;
  private final org.ndrt.ui.UIServer server;

  private UIServer(org.ndrt.ui.UIServer server) {
    this.server = server;
  }

  /** The JVM's dashboard, started on first use. */
  public static synchronized UIServer getInstance() {
    if (instance == null) {
      int port = DEFAULT_PORT;
      String p = System.getProperty(PORT_PROPERTY);
      if (p != null) {
        try {
          port = Integer.parseInt(p.trim());
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(PORT_PROPERTY + " must be a port number, got " + p, e);
        }
      }
      String a = System.getProperty(ADDRESS_PROPERTY);
      InetAddress addr;
      try {
        addr = a == null ? InetAddress.getLoopbackAddress() : InetAddress.getByName(a.trim());
      } catch (UnknownHostException e) {
        throw new IllegalArgumentException(ADDRESS_PROPERTY + ": unknown address " + a, e);
      }
      instance = new UIServer(org.ndrt.ui.UIServer.start(new InetSocketAddress(addr, port)));
    }
    return instance;
  }

  /** Stops the JVM's dashboard if one runs (a later getInstance() starts a new one). */
  public static synchronized void stopInstance() {
    if (instance != null) {
      instance.server.stop();
      instance = null;
    }
  }

  /** ndrt: the org.ndrt.ui server. */
  public org.ndrt.ui.UIServer ndrt() {
    return server;
  }

  public int getPort() {
    return server.port();
  }

  /** The page's address, e.g. http://127.0.0.1:9000/train. */
  public String getAddress() {
    return server.url();
  }

  public void attach(StatsStorage statsStorage) {
    server.attach(statsStorage);
  }

  public void detach(StatsStorage statsStorage) {
    server.detach(statsStorage);
  }

  public boolean isAttached(StatsStorage statsStorage) {
    return server.isAttached(statsStorage);
  }

  public List<org.ndrt.ui.StatsStorage> getStatsStorageInstances() {
    return server.getStatsStorageInstances();
  }

  /** Accepts RemoteUIStatsStorageRouter's records into a new in-memory storage, attached. */
  public void enableRemoteListener() {
    server.enableRemoteListener(new InMemoryStatsStorage());
  }

  /** Accepts remote records into {@code statsStorage} (a StatsStorage: ndrt serves only what it stores); attached. */
  public void enableRemoteListener(StatsStorageRouter statsStorage, boolean attach) {
    if (!(statsStorage instanceof org.ndrt.ui.StatsStorage)) {
      throw new IllegalArgumentException("enableRemoteListener: ndrt needs a StatsStorage (InMemoryStatsStorage,"
          + " FileStatsStorage) to receive into, got " + (statsStorage == null ? "null" : statsStorage.getClass().getName()));
    }
    server.enableRemoteListener((org.ndrt.ui.StatsStorage) statsStorage);
    if (!attach) {
      server.detach((org.ndrt.ui.StatsStorage) statsStorage);
    }
  }

  public void disableRemoteListener() {
    server.disableRemoteListener();
  }

  public boolean isRemoteListenerEnabled() {
    return server.isRemoteListenerEnabled();
  }

  /** Stops this server (the JVM's instance: a later getInstance() starts a new one). */
  public void stop() {
    synchronized (UIServer.class) {
      server.stop();
      if (instance == this) {
        instance = null;
      }
    }
  }
}
