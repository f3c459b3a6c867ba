package org.ndrt.distributed;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * How the ranks of a {@link TcpCommunicator} find each other: each connects to the next rank and
 * accepts the previous one, and the two sides of every connection check that they agree on the
 * group (hello: magic, size, sender's rank, hash of the address list, byte order; answer: a code).
 * Both sides run at once in one non-blocking loop, so no rank waits for a rank that waits for it.
 */
final class TcpRendezvous {
  private TcpRendezvous() {}

  /** One parsed address. */
  static final class Peer {
    final String host;
    final int port;

    Peer(String host, int port) {
      this.host = host;
      this.port = port;
    }
  }

  private static final long MAGIC = 0x4e44525474637031L; // "NDRTtcp1"
  private static final int HELLO_BYTES = 8 + 4 + 4 + 8 + 4;
  private static final int ORDER = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? 1 : 2;
  private static final int OK = 0;
  private static final int OTHER_SIZE = 1;
  private static final int OTHER_LIST = 2;
  private static final int OTHER_RANK = 3;
  private static final int OTHER_ORDER = 4;
  private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  // the states of the two sides
  private static final int CONNECT = 0;
  private static final int SEND = 1;
  private static final int ANSWER = 2;
  private static final int ACCEPT = 3;
  private static final int HELLO = 4;
  private static final int DONE = 5;

  /** "host:port" or "[v6]:port" strings, checked: none null, malformed or repeated. */
  static Peer[] parse(List<String> addresses) {
    if (addresses == null || addresses.isEmpty()) {
      throw new IllegalArgumentException("TcpCommunicator.connect: need the address of every rank (at least one)");
    }
    Peer[] out = new Peer[addresses.size()];
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < out.length; ++i) {
      String a = addresses.get(i);
      int c = a == null ? -1 : a.lastIndexOf(':');
      if (c <= 0 || c == a.length() - 1) {
        throw new IllegalArgumentException("TcpCommunicator.connect: address " + i + " is " + (a == null ? "null" : "\"" + a
            + "\"") + ", not host:port");
      }
      String host = a.substring(0, c);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      } else if (host.indexOf(':') >= 0) {
        throw new IllegalArgumentException("TcpCommunicator.connect: address " + i + " \"" + a
            + "\": an IPv6 host goes in brackets, [addr]:port");
      }
      int port;
      try {
        port = Integer.parseInt(a.substring(c + 1));
      } catch (NumberFormatException e) {
        port = -1;
      }
      if (host.isEmpty() || port < 1 || port > 65535) {
        throw new IllegalArgumentException("TcpCommunicator.connect: address " + i + " \"" + a + "\" is not host:port");
      }
      Integer before = seen.put(host.toLowerCase(Locale.ROOT) + ":" + port, i);
      if (before != null) {
        throw new IllegalArgumentException("TcpCommunicator.connect: addresses " + before + " and " + i + " are both " + a
            + ": every rank listens on its own");
      }
      out[i] = new Peer(host, port);
    }
    return out;
  }

  /** FNV-1a over the list, to check that the ranks were given the same one. */
  static long hash(List<String> addresses) {
    long h = 0xcbf29ce484222325L;
    for (String a : addresses) {
      for (byte b : (a + "\n").getBytes(StandardCharsets.UTF_8)) {
        h = (h ^ (b & 0xff)) * 0x100000001b3L;
      }
    }
    return h;
  }

  /** Connects the ring: returns {to the next rank, from the previous rank}. */
  static SocketChannel[] run(int rank, Peer[] peers, long listHash, ServerSocketChannel mine, long nanos)
      throws IOException {
    int size = peers.length;
    int next = (rank + 1) % size;
    int prev = (rank + size - 1) % size;
    InetSocketAddress nextAddr = new InetSocketAddress(peers[next].host, peers[next].port);
    if (nextAddr.isUnresolved()) {
      throw new IllegalArgumentException("TcpCommunicator.connect: cannot resolve " + peers[next].host + ", the host of rank "
          + next);
    }
    String nextName = "rank " + next + " at " + peers[next].host + ":" + peers[next].port;
    ByteBuffer hello = ByteBuffer.allocate(HELLO_BYTES);
    hello.putLong(MAGIC).putInt(size).putInt(rank).putLong(listHash).putInt(ORDER).flip();
    ByteBuffer answer = ByteBuffer.allocate(4);
    ByteBuffer theirHello = ByteBuffer.allocate(HELLO_BYTES);
    ByteBuffer myAnswer = ByteBuffer.allocate(4);
    int code = OK;
    String refusal = null;
    SocketChannel out = null;
    SocketChannel in = null;
    SelectionKey outKey = null;
    SelectionKey inKey = null;
    int outState = CONNECT;
    int inState = ACCEPT;
    long deadline = System.nanoTime() + nanos;
    long retryAt = System.nanoTime();
    IOException connectError = null;
    boolean done = false;
    try (Selector sel = Selector.open()) {
      mine.configureBlocking(false);
      SelectionKey acceptKey = mine.register(sel, SelectionKey.OP_ACCEPT);
      while (true) {
        // to the next rank: connect (again after a refusal), hello, its answer
        IOException refused = null;
        if (outState == CONNECT && out == null && System.nanoTime() - retryAt >= 0) {
          out = SocketChannel.open();
          out.configureBlocking(false);
          out.setOption(StandardSocketOptions.TCP_NODELAY, true);
          outKey = out.register(sel, SelectionKey.OP_CONNECT);
          try {
            if (out.connect(nextAddr)) {
              outState = SEND;
            }
          } catch (IOException e) {
            refused = e;
          }
        }
        if (outState == CONNECT && out != null && refused == null) {
          try {
            if (out.finishConnect()) {
              outState = SEND;
            }
          } catch (IOException e) {
            refused = e;
          }
        }
        if (refused != null) { // not listening (yet, or any more): try again until the deadline
          closeQuietly(out);
          out = null;
          connectError = refused;
          retryAt = System.nanoTime() + RETRY_NANOS;
        }
        if (outState == SEND) {
          out.write(hello);
          if (!hello.hasRemaining()) {
            outState = ANSWER;
          }
        }
        if (outState == ANSWER) {
          if (out.read(answer) < 0) {
            throw new EOFException(nextName + " closed the connection during the handshake");
          }
          if (!answer.hasRemaining()) {
            int c = answer.getInt(0);
            if (c != OK) {
              throw new IllegalArgumentException("TcpCommunicator.connect: " + nextName + " refused rank " + rank
                  + ": " + reason(c, size));
            }
            outState = DONE;
          }
        }
        // from the previous rank: accept, its hello, our answer
        if (inState == ACCEPT) {
          in = mine.accept();
          if (in != null) {
            in.configureBlocking(false);
            in.setOption(StandardSocketOptions.TCP_NODELAY, true);
            inKey = in.register(sel, SelectionKey.OP_READ);
            theirHello.clear();
            inState = HELLO;
          }
        }
        if (inState == HELLO) {
          int r = in.read(theirHello);
          if (r < 0 || (!theirHello.hasRemaining() && theirHello.getLong(0) != MAGIC)) {
            closeQuietly(in); // not one of ours (a stray connection): wait for the right one
            in = null;
            inState = ACCEPT;
          } else if (!theirHello.hasRemaining()) {
            int theirSize = theirHello.getInt(8);
            int theirRank = theirHello.getInt(12);
            code = theirSize != size ? OTHER_SIZE
                : theirHello.getLong(16) != listHash ? OTHER_LIST
                : theirRank != prev ? OTHER_RANK
                : theirHello.getInt(24) != ORDER ? OTHER_ORDER : OK;
            if (code != OK) {
              refusal = "TcpCommunicator.connect: rank " + rank + " was connected to by rank " + theirRank + " of a group of "
                  + theirSize + ": " + reason(code, size) + (code == OTHER_RANK ? " (expected rank " + prev + ")" : "");
            }
            myAnswer.putInt(code).flip();
            inState = ANSWER;
          }
        }
        if (inState == ANSWER) {
          in.write(myAnswer);
          if (refusal != null) {
            throw new IllegalArgumentException(refusal);
          }
          if (!myAnswer.hasRemaining()) {
            inState = DONE;
          }
        }
        if (outState == DONE && inState == DONE) {
          break;
        }
        long now = System.nanoTime();
        long left = deadline - now;
        if (left <= 0) {
          throw new SocketTimeoutException(outState != DONE
              ? nextName + " did not " + (outState == CONNECT ? "accept a connection" + (connectError != null ? " ("
                  + connectError.getMessage() + ")" : "") : "answer") + " within " + TimeUnit.NANOSECONDS.toMillis(nanos) + " ms"
              : "rank " + prev + " did not connect within " + TimeUnit.NANOSECONDS.toMillis(nanos) + " ms");
        }
        if (out != null) {
          outKey.interestOps(outState == CONNECT ? SelectionKey.OP_CONNECT : outState == SEND ? SelectionKey.OP_WRITE
              : outState == ANSWER ? SelectionKey.OP_READ : 0);
        } else {
          left = Math.min(left, retryAt - now);
        }
        if (in != null) {
          inKey.interestOps(inState == HELLO ? SelectionKey.OP_READ : inState == ANSWER ? SelectionKey.OP_WRITE : 0);
        }
        acceptKey.interestOps(inState == ACCEPT ? SelectionKey.OP_ACCEPT : 0);
        sel.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        sel.selectedKeys().clear();
      }
      done = true;
    } finally {
      if (!done) {
        closeQuietly(out);
        closeQuietly(in);
      }
    }
    return new SocketChannel[] {out, in};
  }

  private static String reason(int code, int size) {
    switch (code) {
      case OTHER_SIZE:
        return "the two ranks were given different numbers of addresses (this one " + size + ")";
      case OTHER_LIST:
        return "the two ranks were given different address lists";
      case OTHER_RANK:
        return "another rank than the one before it connected (the address lists disagree)";
      case OTHER_ORDER:
        return "the two hosts have different byte orders";
      default:
        return "code " + code;
    }
  }

  static void closeQuietly(Closeable c) {
    if (c != null) {
      try {
        c.close();
      } catch (IOException e) {
        // closing is all that is left to do
      }
    }
  }
}
