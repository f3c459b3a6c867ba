package org.ndrt.ui;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Sends records to a dashboard in another process: each one POSTed as JSON to {@code
 * <url>/remoteReceive} (the server must have {@link UIServer#enableRemoteListener}), from one
 * background thread so training never waits on the network. A record the server refuses or that
 * cannot be sent after {@code retries} tries is dropped and counted ({@link #failures()}).
 */
public class RemoteStatsRouter implements StatsRouter, AutoCloseable {
  private static final Logger LOG = Logger.getLogger(RemoteStatsRouter.class.getName());
  private final URI target;
  private final HttpClient client;
  private final ExecutorService sender;
  private final int retries;
  private final AtomicLong sent = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();

  /** Posts to {@code url} (e.g. "http://localhost:9000"), 3 tries per record. */
  public RemoteStatsRouter(String url) {
    this(url, 3);
  }

  public RemoteStatsRouter(String url, int retries) {
    if (url == null) {
      throw new IllegalArgumentException("RemoteStatsRouter: the URL must not be null");
    }
    URI u;
    try {
      u = URI.create(url.endsWith("/") ? url.substring(0, url.length() - 1) : url);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("RemoteStatsRouter: not a URL: " + url, e);
    }
    if (!"http".equals(u.getScheme()) || u.getHost() == null) {
      throw new IllegalArgumentException("RemoteStatsRouter: need an http://host:port URL, got " + url);
    }
    if (retries < 1) {
      throw new IllegalArgumentException("RemoteStatsRouter: retries must be at least 1, got " + retries);
    }
    this.target = URI.create(u + UIServer.REMOTE_PATH);
    this.retries = retries;
    this.client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    this.sender = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "ndrt-remote-stats");
      t.setDaemon(true);
      return t;
    });
  }

  @Override
  public void put(StatsRecord record) {
    if (record == null) {
      throw new IllegalArgumentException("put: the record must not be null");
    }
    sender.execute(() -> send(record));
  }

  private void send(StatsRecord record) {
    HttpRequest req = HttpRequest.newBuilder(target).timeout(Duration.ofSeconds(10))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(record.json())).build();
    String why = null;
    for (int i = 0; i < retries; ++i) {
      try {
        HttpResponse<String> r = client.send(req, HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 == 2) {
          sent.incrementAndGet();
          return;
        }
        why = "HTTP " + r.statusCode() + ": " + r.body();
        if (r.statusCode() / 100 == 4) {
          break;  // refused: sending it again changes nothing
        }
      } catch (java.io.IOException e) {
        why = e.toString();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        why = "interrupted";
        break;
      }
      try {
        Thread.sleep(200L << i);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    if (failures.getAndIncrement() == 0) {
      LOG.log(Level.WARNING, "RemoteStatsRouter: could not send a record to " + target + " (" + why
          + "); later failures are only counted");
    }
  }

  /** Records the server accepted. */
  public long sent() {
    return sent.get();
  }

  /** Records dropped (refused, or not sent after the retries). */
  public long failures() {
    return failures.get();
  }

  /** Sends what is queued (waiting at most {@code timeoutMillis}), then stops the sender thread. */
  public void close(long timeoutMillis) {
    sender.shutdown();
    try {
      sender.awaitTermination(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    close(30_000);
  }
}
