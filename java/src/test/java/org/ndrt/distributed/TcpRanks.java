package org.ndrt.distributed;

import java.io.IOException;
import java.nio.channels.ServerSocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Ranks of a TcpCommunicator group as threads of this JVM (tests). */
final class TcpRanks {
  private TcpRanks() {}

  /** What one rank does with its communicator. */
  interface Body<T> {
    T run(int rank, TcpCommunicator comm) throws Exception;
  }

  /** What one rank does before connecting (its rank, the group's addresses, its server socket). */
  interface Start<T> {
    T run(int rank, List<String> addresses, ServerSocketChannel mine) throws Exception;
  }

  /** A generous bound for the collectives of tests that are not about timeouts (the machine may be busy). */
  static final Duration PATIENT = Duration.ofSeconds(60);

  /**
   * {@code size} ranks on threads, each connected (loopback) with {@code timeout} and running {@code
   * body}; the results in rank order. A rank's exception is thrown (the first by rank); a rank still
   * running after {@code waitSeconds} fails the test as a hang.
   */
  static <T> List<T> run(int size, Duration timeout, Body<T> body) throws Exception {
    return start(size, (r, addresses, mine) -> {
      try (TcpCommunicator c = TcpCommunicator.connect(r, addresses, mine, timeout)) {
        return body.run(r, c);
      }
    });
  }

  /** {@code size} ranks on threads, each given the addresses and its server socket (it connects itself). */
  static <T> List<T> start(int size, Start<T> body) throws Exception {
    ServerSocketChannel[] servers = new ServerSocketChannel[size];
    List<String> addresses = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(size);
    try {
      for (int r = 0; r < size; ++r) {
        servers[r] = TcpCommunicator.listen();
        addresses.add(TcpCommunicator.address(servers[r]));
      }
      List<Future<T>> fs = new ArrayList<>();
      for (int r = 0; r < size; ++r) {
        int rank = r;
        fs.add(pool.submit(() -> body.run(rank, addresses, servers[rank])));
      }
      List<T> out = new ArrayList<>();
      for (Future<T> f : fs) {
        try {
          out.add(f.get(300, TimeUnit.SECONDS));
        } catch (ExecutionException e) {
          if (e.getCause() instanceof Exception) {
            throw (Exception) e.getCause();
          }
          throw e;
        } catch (TimeoutException e) {
          throw new AssertionError("a rank did not finish within 300 s: a hang", e);
        }
      }
      return out;
    } finally {
      pool.shutdownNow();
      for (ServerSocketChannel s : servers) {
        if (s != null) {
          try {
            s.close();
          } catch (IOException e) {
            // closed by connect already
          }
        }
      }
    }
  }

  /** What a rank threw (null if nothing), so tests can look at every rank's failure. */
  static Throwable thrown(Body0 body) {
    try {
      body.run();
      return null;
    } catch (Throwable t) {
      return t;
    }
  }

  /** A body without a result. */
  interface Body0 {
    void run() throws Exception;
  }
}
