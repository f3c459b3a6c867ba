package org.ndrt.ui;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.ndrt.nn.conf.Json;

/**
 * The training dashboard's HTTP server, on the JDK's own server (module jdk.httpserver): the page
 * ({@code /train}, one HTML file with its script, charts drawn as SVG; nothing fetched from the
 * network) and the JSON it polls, from the attached storages:
 *
 * <ul>
 *   <li>{@code GET /api/sessions}: {"sessions":[{"id","updates","static":[...]}]}
 *   <li>{@code GET /api/updates?session=ID&from=N[&max=M]}: {"session","from","next","updates":[...]}
 *   <li>{@code POST /remoteReceive}: one record (JSON) from a {@link RemoteStatsRouter}, when
 *       {@link #enableRemoteListener} was called (403 otherwise)
 * </ul>
 *
 * Bound to 127.0.0.1 unless an address is given. A bad request gets a 4xx and a one-line reason; an
 * unexpected failure a 500 without details (logged here).
 */
public final class UIServer implements AutoCloseable {
  /** Where remote records are posted (Deeplearning4j's path). */
  public static final String REMOTE_PATH = "/remoteReceive";
  /** The most update records one /api/updates answer holds. */
  public static final int MAX_UPDATES = 5000;
  private static final Logger LOG = Logger.getLogger(UIServer.class.getName());
  private static final String PAGE = "dashboard.html";

  private final HttpServer server;
  private final ExecutorService executor;
  private final List<StatsStorage> storages = new CopyOnWriteArrayList<>();
  private volatile StatsStorage remoteTarget;
  private final byte[] page;

  private UIServer(InetSocketAddress address) throws IOException {
    try (InputStream in = UIServer.class.getResourceAsStream(PAGE)) {
      if (in == null) {
        throw new IllegalStateException("UIServer: " + PAGE + " is missing from the jar");
      }
      page = in.readAllBytes();
    }
    server = HttpServer.create(address, 16);
    executor = Executors.newFixedThreadPool(2, r -> {
      Thread t = new Thread(r, "ndrt-ui-http");
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  /** A server on 127.0.0.1:{@code port} (0: a free port; see {@link #port()}). */
  public static UIServer start(int port) {
    return start(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
  }

  /** A server on {@code address}: only with an address beyond loopback is the dashboard reachable from other hosts. */
  public static UIServer start(InetSocketAddress address) {
    if (address == null) {
      throw new IllegalArgumentException("UIServer.start: the address must not be null");
    }
    if (address.getPort() < 0 || address.getPort() > 65535) {
      throw new IllegalArgumentException("UIServer.start: port " + address.getPort() + " is out of range");
    }
    try {
      return new UIServer(address);
    } catch (IOException e) {
      throw new UncheckedIOException("UIServer: cannot listen on " + address + ": " + e.getMessage(), e);
    }
  }

  /** Shows {@code storage}'s sessions in the page (attaching one twice changes nothing). */
  public void attach(StatsStorage storage) {
    if (storage == null) {
      throw new IllegalArgumentException("attach: the storage must not be null");
    }
    if (!storages.contains(storage)) {
      storages.add(storage);
    }
  }

  public void detach(StatsStorage storage) {
    storages.remove(storage);
  }

  public boolean isAttached(StatsStorage storage) {
    return storages.contains(storage);
  }

  public List<StatsStorage> getStatsStorageInstances() {
    return List.copyOf(storages);
  }

  /** Accepts records POSTed to {@link #REMOTE_PATH} into {@code target}, which is attached. */
  public void enableRemoteListener(StatsStorage target) {
    if (target == null) {
      throw new IllegalArgumentException("enableRemoteListener: the storage must not be null");
    }
    attach(target);
    remoteTarget = target;
  }

  public void disableRemoteListener() {
    remoteTarget = null;
  }

  public boolean isRemoteListenerEnabled() {
    return remoteTarget != null;
  }

  /** The port listened on. */
  public int port() {
    return server.getAddress().getPort();
  }

  public InetSocketAddress address() {
    return server.getAddress();
  }

  /** The page's address, e.g. http://127.0.0.1:9000/train (a wildcard bind shows as localhost). */
  public String url() {
    InetAddress a = server.getAddress().getAddress();
    String host = a.isAnyLocalAddress() ? "localhost" : a.getHostAddress();
    if (host.contains(":")) {
      host = "[" + host + "]";
    }
    return "http://" + host + ":" + port() + "/train";
  }

  /** Stops listening (at once) and ends the server's threads. */
  public void stop() {
    server.stop(0);
    executor.shutdownNow();
  }

  @Override
  public void close() {
    stop();
  }

  // ------------------------------------------------------------------------------------ requests

  /** A request answered with a 4xx status and a short reason. */
  private static final class BadRequest extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final int status;

    BadRequest(int status, String message) {
      super(message, null, false, false);
      this.status = status;
    }
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      try {
        route(ex);
      } catch (BadRequest e) {
        send(ex, e.status, "text/plain; charset=utf-8", e.getMessage().getBytes(StandardCharsets.UTF_8));
      } catch (RuntimeException | IOException e) {
        LOG.log(Level.WARNING, "UIServer: " + ex.getRequestMethod() + " " + ex.getRequestURI() + " failed", e);
        send(ex, 500, "text/plain; charset=utf-8", "internal error\n".getBytes(StandardCharsets.UTF_8));
      }
    }
  }

  private void route(HttpExchange ex) throws IOException {
    String method = ex.getRequestMethod();
    String path = ex.getRequestURI().getRawPath();
    Map<String, String> q = query(ex.getRequestURI().getRawQuery());
    switch (path) {
      case "/":
        allow(method, "GET", "HEAD");
        ex.getResponseHeaders().set("Location", "/train");
        send(ex, 302, "text/plain; charset=utf-8", new byte[0]);
        return;
      case "/train":
      case "/train/":
        allow(method, "GET", "HEAD");
        send(ex, 200, "text/html; charset=utf-8", page);
        return;
      case "/api/sessions":
        allow(method, "GET", "HEAD");
        json(ex, sessionsJson());
        return;
      case "/api/updates":
        allow(method, "GET", "HEAD");
        json(ex, updatesJson(q));
        return;
      case REMOTE_PATH:
        allow(method, "POST");
        receive(ex);
        return;
      default:
        throw new BadRequest(404, "not found: " + truncate(path) + "\n");
    }
  }

  private static void allow(String method, String... methods) {
    for (String m : methods) {
      if (m.equals(method)) {
        return;
      }
    }
    throw new BadRequest(405, "method " + truncate(method) + " not allowed here\n");
  }

  private static String truncate(String s) {
    return s.length() > 100 ? s.substring(0, 100) + "..." : s;
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> q = new HashMap<>();
    if (raw == null || raw.isEmpty()) {
      return q;
    }
    for (String part : raw.split("&")) {
      int eq = part.indexOf('=');
      try {
        String k = URLDecoder.decode(eq < 0 ? part : part.substring(0, eq), StandardCharsets.UTF_8);
        String v = eq < 0 ? "" : URLDecoder.decode(part.substring(eq + 1), StandardCharsets.UTF_8);
        if (q.put(k, v) != null) {
          throw new BadRequest(400, "parameter " + truncate(k) + " given twice\n");
        }
      } catch (IllegalArgumentException e) {
        throw new BadRequest(400, "malformed query string\n");
      }
    }
    return q;
  }

  private static int intParam(Map<String, String> q, String name, int dflt, int min, int max) {
    String v = q.get(name);
    if (v == null) {
      return dflt;
    }
    try {
      int n = Integer.parseInt(v);
      if (n < min || n > max) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw new BadRequest(400, "parameter " + name + " must be an integer from " + min + " to " + max + "\n");
    }
  }

  private String sessionsJson() {
    StringBuilder sb = new StringBuilder("{\"sessions\":[");
    List<String> seen = new ArrayList<>();
    for (StatsStorage s : storages) {
      for (String id : s.sessions()) {
        if (seen.contains(id)) {
          continue;  // the first storage holding a session id serves it
        }
        seen.add(id);
        if (seen.size() > 1) {
          sb.append(',');
        }
        sb.append("{\"id\":");
        Json.quote(sb, id);
        sb.append(",\"updates\":").append(s.updateCount(id)).append(",\"static\":[");
        sb.append(String.join(",", s.staticInfo(id))).append("]}");
      }
    }
    return sb.append("]}").toString();
  }

  private String updatesJson(Map<String, String> q) {
    String id = q.get("session");
    if (id == null || id.isEmpty()) {
      throw new BadRequest(400, "parameter session is required\n");
    }
    int from = intParam(q, "from", 0, 0, Integer.MAX_VALUE);
    int max = intParam(q, "max", MAX_UPDATES, 1, MAX_UPDATES);
    for (StatsStorage s : storages) {
      if (s.sessions().contains(id)) {
        List<String> u = s.updates(id, from, max);
        StringBuilder sb = new StringBuilder("{\"session\":");
        Json.quote(sb, id);
        sb.append(",\"from\":").append(from).append(",\"next\":").append(from + u.size()).append(",\"updates\":[");
        sb.append(String.join(",", u));
        return sb.append("]}").toString();
      }
    }
    throw new BadRequest(404, "no session " + truncate(id) + "\n");
  }

  private void receive(HttpExchange ex) throws IOException {
    StatsStorage target = remoteTarget;
    if (target == null) {
      throw new BadRequest(403, "remote listener not enabled (UIServer.enableRemoteListener)\n");
    }
    byte[] body;
    try (InputStream in = ex.getRequestBody()) {
      body = in.readNBytes(StatsRecord.MAX_CHARS + 1);
    }
    if (body.length > StatsRecord.MAX_CHARS) {
      throw new BadRequest(413, "a record is at most " + StatsRecord.MAX_CHARS + " bytes\n");
    }
    StatsRecord r;
    try {
      r = StatsRecord.parse(new String(body, StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      throw new BadRequest(400, "not a stats record: " + truncate(e.getMessage()) + "\n");
    }
    target.put(r);
    send(ex, 204, null, null);
  }

  private static void json(HttpExchange ex, String body) throws IOException {
    send(ex, 200, "application/json; charset=utf-8", body.getBytes(StandardCharsets.UTF_8));
  }

  private static void send(HttpExchange ex, int status, String type, byte[] body) throws IOException {
    if (type != null) {
      ex.getResponseHeaders().set("Content-Type", type);
    }
    ex.getResponseHeaders().set("Cache-Control", "no-store");
    ex.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
    boolean none = body == null || body.length == 0 || "HEAD".equals(ex.getRequestMethod()) || status == 204;
    ex.sendResponseHeaders(status, none ? -1 : body.length);
    if (!none) {
      try (OutputStream o = ex.getResponseBody()) {
        o.write(body);
      }
    }
  }
}
