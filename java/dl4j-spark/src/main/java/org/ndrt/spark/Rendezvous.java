package org.ndrt.spark;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.ndrt.distributed.TcpCommunicator;

/**
 * Where the tasks of a gradient-sharing stage learn each other's addresses: a small server on the driver.
 * Each task connects, binds its own TcpCommunicator socket on the interface that reached the driver, and
 * sends "rank host:port"; once every rank has, each gets the list in rank order. A rank that comes again
 * (Spark retrying the stage) replaces its earlier entry. (Spark's own BarrierTaskContext.allGather would
 * do, but it starts a non-daemon timer thread that keeps a local-mode JVM from exiting.)
 */
final class Rendezvous implements AutoCloseable {
  private final ServerSocket server;
  private final int workers;
  private final Thread thread;
  private final Socket[] waiting;
  private final String[] addresses;

  Rendezvous(InetAddress bind, int workers, Duration timeout) throws IOException {
    this.server = new ServerSocket();
    server.bind(new InetSocketAddress(bind, 0));
    this.workers = workers;
    this.waiting = new Socket[workers];
    this.addresses = new String[workers];
    this.thread = new Thread(() -> serve((int) Math.min(Integer.MAX_VALUE, timeout.toMillis())),
        "ndrt-spark-rendezvous");
    thread.setDaemon(true);
    thread.start();
  }

  /** "host:port" of the server, for the tasks. */
  String address() {
    return server.getInetAddress().getHostAddress() + ":" + server.getLocalPort();
  }

  private void serve(int timeoutMillis) {
    while (!server.isClosed()) {
      try {
        Socket s = server.accept();
        s.setSoTimeout(timeoutMillis);
        String[] line = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8))
            .readLine().split(" ");
        int rank = Integer.parseInt(line[0]);
        if (rank < 0 || rank >= workers || line.length != 2) {
          s.close();
          continue;
        }
        if (waiting[rank] != null) {
          waiting[rank].close();  // the same rank again: a retried stage
        }
        waiting[rank] = s;
        addresses[rank] = line[1];
        if (Arrays.stream(waiting).allMatch(w -> w != null)) {
          String list = String.join(" ", addresses) + "\n";
          for (int r = 0; r < workers; ++r) {
            try (Socket w = waiting[r]) {
              Writer out = new OutputStreamWriter(w.getOutputStream(), StandardCharsets.UTF_8);
              out.write(list);
              out.flush();
            } catch (IOException e) {
              // that task is gone; it fails the stage on its side
            }
            waiting[r] = null;
          }
        }
      } catch (SocketException e) {
        return;  // closed
      } catch (IOException | RuntimeException e) {
        // a bad or lost connection: that task fails; keep serving the others
      }
    }
  }

  /**
   * A task's side: joins as {@code rank} and returns its communicator, connected to every rank's.
   */
  static TcpCommunicator join(String driver, int rank, int workers, Duration timeout) throws IOException {
    int colon = driver.lastIndexOf(':');
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(driver.substring(0, colon), Integer.parseInt(driver.substring(colon + 1))),
          (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
      s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
      ServerSocketChannel mine = TcpCommunicator.listen(s.getLocalAddress());
      Writer out = new OutputStreamWriter(s.getOutputStream(), StandardCharsets.UTF_8);
      out.write(rank + " " + TcpCommunicator.address(mine) + "\n");
      out.flush();
      String line = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8)).readLine();
      if (line == null) {
        mine.close();
        throw new IOException("gradient sharing: the driver closed the rendezvous before every rank joined");
      }
      List<String> all = new ArrayList<>(Arrays.asList(line.split(" ")));
      if (all.size() != workers) {
        mine.close();
        throw new IOException("gradient sharing: the rendezvous gave " + all.size() + " addresses for " + workers
            + " ranks");
      }
      return TcpCommunicator.connect(rank, all, mine, timeout);
    }
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      // nothing to do
    }
    for (Socket s : waiting) {
      if (s != null) {
        try {
          s.close();
        } catch (IOException e) {
          // nothing to do
        }
      }
    }
  }
}
