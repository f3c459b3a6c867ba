package org.ndrt.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.ndrt.DType;
import org.ndrt.Tensor;
import org.ndrt.distributed.ReduceOp;
import org.ndrt.distributed.TcpCommunicator;

/**
 * The gradient-sharing tasks' meeting point on the driver: two ranks join and their communicators work; a
 * malformed join is dropped; a rendezvous closed before every
 * rank joined, or a list of the wrong length, is an IOException on the task.
 */
class RendezvousTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  @Test
  void twoRanksJoinAndTheirCommunicatorsWork() throws Exception {
    try (Rendezvous r = new Rendezvous(InetAddress.getLoopbackAddress(), 2, TIMEOUT)) {
      // A malformed line and a rank out of range are dropped.
      send(r.address(), "not a join\n");
      send(r.address(), "7 127.0.0.1:1\n");
      CompletableFuture<TcpCommunicator> a = CompletableFuture.supplyAsync(() -> join(r.address(), 0, 2));
      CompletableFuture<TcpCommunicator> b = CompletableFuture.supplyAsync(() -> join(r.address(), 1, 2));
      try (TcpCommunicator c0 = a.get(); TcpCommunicator c1 = b.get()) {
        assertEquals(0, c0.rank());
        assertEquals(1, c1.rank());
        try (Tensor x0 = Tensor.from(new float[] {1.5f, -2f}, 2); Tensor x1 = Tensor.from(new float[] {0.25f, 4f}, 2)) {
          CompletableFuture<Void> s0 = CompletableFuture.runAsync(() -> c0.allreduce(x0, ReduceOp.SUM));
          c1.allreduce(x1, ReduceOp.SUM);
          s0.get();
          assertEquals(1.75f, x0.toFloatArray()[0], 0f);
          assertEquals(2f, x1.toFloatArray()[1], 0f);
          assertEquals(DType.F32, x0.dtype());
        }
      }
    }
  }

  @Test
  void aRendezvousClosedOrWrongIsAnIOException() throws Exception {
    Rendezvous r = new Rendezvous(InetAddress.getLoopbackAddress(), 2, TIMEOUT);
    String at = r.address();
    CompletableFuture<Exception> alone = CompletableFuture.supplyAsync(() -> {
      try {
        Rendezvous.join(at, 0, 2, TIMEOUT).close();
        return null;
      } catch (IOException e) {
        return e;
      }
    });
    Thread.sleep(300);  // rank 0 waits for rank 1, which never comes
    r.close();
    Exception e = alone.get();
    assertTrue(e != null, "the join must fail when the rendezvous closes");

    // A task that expects 3 ranks where the driver gathers 2: the list has the wrong length.
    try (Rendezvous two = new Rendezvous(InetAddress.getLoopbackAddress(), 2, TIMEOUT)) {
      CompletableFuture<Exception> wrong = CompletableFuture.supplyAsync(() -> {
        try {
          Rendezvous.join(two.address(), 0, 3, TIMEOUT).close();
          return null;
        } catch (IOException x) {
          return x;
        }
      });
      CompletableFuture<TcpCommunicator> other = CompletableFuture.supplyAsync(() -> join(two.address(), 1, 2));
      Exception w = wrong.get();
      assertTrue(w != null && w.getMessage().contains("2 addresses for 3 ranks"), String.valueOf(w));
      assertThrows(Exception.class, () -> other.get().close());  // its peer never connected
    }
  }

  private static TcpCommunicator join(String at, int rank, int ranks) {
    try {
      return Rendezvous.join(at, rank, ranks, TIMEOUT);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void send(String at, String line) throws IOException {
    int colon = at.lastIndexOf(':');
    try (Socket s = new Socket(at.substring(0, colon), Integer.parseInt(at.substring(colon + 1)))) {
      Writer w = new OutputStreamWriter(s.getOutputStream(), StandardCharsets.UTF_8);
      w.write(line);
      w.flush();
    }
  }
}
