package org.ndrt.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.ndrt.nn.conf.Json;

/** The dashboard server over HTTP: where it listens, what it answers, how it refuses. */
class UIServerTest {
  private UIServer server;
  private InMemoryStatsStorage storage;

  /** A status and body. */
  record Reply(int status, String body, String type) {}

  @BeforeEach
  void start() {
    server = UIServer.start(0);
    storage = new InMemoryStatsStorage();
    server.attach(storage);
  }

  @AfterEach
  void stop() {
    server.stop();
  }

  private Reply request(String method, String path, String body) throws IOException {
    HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + server.port() + path).toURL().openConnection();
    c.setRequestMethod(method);
    c.setInstanceFollowRedirects(false);
    if (body != null) {
      c.setDoOutput(true);
      try (OutputStream o = c.getOutputStream()) {
        o.write(body.getBytes(StandardCharsets.UTF_8));
      }
    }
    int status = c.getResponseCode();
    InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
    String text = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
    c.disconnect();
    return new Reply(status, text, c.getContentType());
  }

  private static StatsRecord record(String session, String type, long iteration, double score) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("session", session);
    m.put("type", type);
    m.put("iteration", iteration);
    m.put("score", score);
    return StatsRecord.of(m);
  }

  @Test
  void listensOnLoopbackOnlyByDefault() {
    assertTrue(server.address().getAddress().isLoopbackAddress(), server.address().toString());
    assertTrue(server.url().startsWith("http://127.0.0.1:"), server.url());
  }

  @Test
  void servesThePageAndTheRecords() throws IOException {
    Reply page = request("GET", "/train", null);
    assertEquals(200, page.status());
    assertTrue(page.body().contains("id=\"chart-score\""));
    assertFalse(page.body().contains("http://") && page.body().contains("<script src"), "no external script");
    assertEquals(302, request("GET", "/", null).status());

    storage.put(record("s1", StatsRecord.STATIC, 0, 0));
    for (int i = 1; i <= 5; ++i) {
      storage.put(record("s1", StatsRecord.UPDATE, i, 1.0 / i));
    }
    Map<?, ?> sessions = (Map<?, ?>) Json.parse(request("GET", "/api/sessions", null).body());
    List<?> list = (List<?>) sessions.get("sessions");
    assertEquals(1, list.size());
    assertEquals("s1", ((Map<?, ?>) list.get(0)).get("id"));
    assertEquals(5L, ((Map<?, ?>) list.get(0)).get("updates"));

    Map<?, ?> u = (Map<?, ?>) Json.parse(request("GET", "/api/updates?session=s1&from=2", null).body());
    assertEquals(5L, u.get("next"));
    List<?> ups = (List<?>) u.get("updates");
    assertEquals(3, ups.size());
    assertEquals(3L, ((Map<?, ?>) ups.get(0)).get("iteration"));
    assertEquals(1.0 / 3, ((Map<?, ?>) ups.get(0)).get("score"));
    Map<?, ?> two = (Map<?, ?>) Json.parse(request("GET", "/api/updates?session=s1&from=1&max=2", null).body());
    assertEquals(3L, two.get("next"));
  }

  @Test
  void badRequestsGet4xxWithoutStackTraces() throws IOException {
    Object[][] cases = {
      {"GET", "/nothing/here", 404},
      {"GET", "/api/updates", 400},
      {"GET", "/api/updates?session=", 400},
      {"GET", "/api/updates?session=none", 404},
      {"GET", "/api/updates?session=s&from=abc", 400},
      {"GET", "/api/updates?session=s&from=-1", 400},
      {"GET", "/api/updates?session=s&from=99999999999", 400},
      {"GET", "/api/updates?session=s&max=0", 400},
      {"GET", "/api/updates?session=a&session=b", 400},
      {"POST", "/api/sessions", 405},
      {"DELETE", "/train", 405},
      {"GET", "/remoteReceive", 405},
      {"POST", "/remoteReceive", 403},
    };
    for (Object[] c : cases) {
      Reply r = request((String) c[0], (String) c[1], "POST".equals(c[0]) ? "{}" : null);
      assertEquals(c[2], r.status(), c[0] + " " + c[1] + ": " + r.body());
      assertFalse(r.body().contains("Exception") || r.body().contains("\tat ") || r.body().contains("org.ndrt."),
          c[1] + " answered with internals: " + r.body());
    }
  }

  @Test
  void remoteRecordsAreCheckedAndStored() throws IOException {
    InMemoryStatsStorage remote = new InMemoryStatsStorage();
    server.enableRemoteListener(remote);
    assertTrue(server.isAttached(remote));
    for (String bad : new String[] {"", "not json", "[1,2]", "{\"session\":\"x\"}", "{\"session\":\"x\",\"type\":\"other\"}",
        "{\"session\":5,\"type\":\"update\"}", "{\"session\":\"x\",\"type\":\"update\"} trailing"}) {
      Reply r = request("POST", UIServer.REMOTE_PATH, bad);
      assertEquals(400, r.status(), bad + ": " + r.body());
      assertFalse(r.body().contains("Exception"), r.body());
    }
    assertEquals(List.of(), remote.sessions());
    // Over the size limit: refused without reading it all.
    Reply big = request("POST", UIServer.REMOTE_PATH, "x".repeat(StatsRecord.MAX_CHARS + 10));
    assertEquals(413, big.status());

    try (RemoteStatsRouter router = new RemoteStatsRouter("http://127.0.0.1:" + server.port())) {
      router.put(record("r", StatsRecord.STATIC, 0, 0));
      router.put(record("r", StatsRecord.UPDATE, 1, 0.25));
      router.close(60_000);
      assertEquals(2, router.sent());
      assertEquals(0, router.failures());
    }
    assertEquals(List.of("r"), remote.sessions());
    assertEquals(1, remote.updateCount("r"));
    assertTrue(remote.updates("r", 0, 10).get(0).contains("\"score\":0.25"));

    server.disableRemoteListener();
    assertEquals(403, request("POST", UIServer.REMOTE_PATH, "{\"session\":\"x\",\"type\":\"update\"}").status());
  }

  /** Sends {@code head} as it is (no client-side URI checks); returns the status line and what follows. */
  private String raw(String head) throws IOException {
    try (Socket s = new Socket("127.0.0.1", server.port())) {
      s.getOutputStream().write(head.getBytes(StandardCharsets.ISO_8859_1));
      s.getOutputStream().flush();
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
    }
  }

  @Test
  void malformedEscapesGet400() throws IOException {
    for (String q : new String[] {"session=%zz", "session=a%", "%g0=1"}) {
      String r = raw("GET /api/updates?" + q + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      // The JDK's server refuses these itself: a 400 naming the reason, without a stack trace.
      assertTrue(r.startsWith("HTTP/1.1 400"), q + ": " + r);
      assertFalse(r.contains("\tat ") || r.contains(".java:"), r);
    }
  }

  @Test
  void malformedHttpDoesNotStopTheServer() throws IOException {
    try (Socket s = new Socket("127.0.0.1", server.port())) {
      s.getOutputStream().write("GARBAGE\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      s.getInputStream().read(new byte[256]);
    }
    assertEquals(200, request("GET", "/api/sessions", null).status());
  }

  @Test
  void argumentsAreChecked() {
    assertThrows(IllegalArgumentException.class, () -> server.attach(null));
    assertThrows(IllegalArgumentException.class, () -> UIServer.start(70000));
    assertThrows(IllegalArgumentException.class, () -> new RemoteStatsRouter("ftp://host"));
    assertThrows(IllegalArgumentException.class, () -> new RemoteStatsRouter("http://h:1", 0));
    assertThrows(IllegalArgumentException.class, () -> StatsRecord.parse("{\"type\":\"update\"}"));
  }
}
