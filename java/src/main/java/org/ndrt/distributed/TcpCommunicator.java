package org.ndrt.distributed;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.lang.ref.Cleaner;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.ndrt.BackendException;
import org.ndrt.DType;
import org.ndrt.InvalidArgumentException;
import org.ndrt.Tensor;
import org.ndrt.capi.NdrtCConstants;

/**
 * {@link Collectives} over plain TCP, in Java (no MPI, no native transport): for hosts where MPI is
 * not there, such as Spark executors. The ranks form a ring: each holds one connection to the next
 * rank and one from the previous. Start:
 *
 * <pre>{@code
 * ServerSocketChannel mine = TcpCommunicator.listen(InetAddress.getByName(host)); // ephemeral port
 * String me = TcpCommunicator.address(mine);                                       // "host:port"
 * List<String> all = ...; // every rank's address in rank order (Spark: BarrierTaskContext.allGather)
 * try (TcpCommunicator comm = TcpCommunicator.connect(rank, all, mine, Duration.ofSeconds(60))) {
 *   new DistributedTrainer.Builder(net, comm).gradientSharing().build().fit(shard, 3);
 * }
 * }</pre>
 *
 * <p><b>Collectives.</b> {@code allreduce} (f32, f64, i32, i64; SUM, MEAN (floats only), MAX, MIN)
 * is a ring reduce-scatter then allgather, in chunks of {@value #CHUNK_BYTES} bytes copied between
 * the tensors and two reused host buffers: each part of the result is reduced on one rank and sent
 * to the others, so every rank gets the same bits (MEAN: that rank divides the sum by the size).
 * {@code broadcast} (any dtype) is pipelined around the ring from the root. Before its data every
 * collective sends its description (kind, dtype, op or root, element count, shapes) around the
 * ring: when the ranks called different collectives every rank throws an {@link
 * InvalidArgumentException} naming each rank's call, and the group stays usable. {@code barrier}
 * is that exchange alone. Calls run on one worker thread per communicator, in the order they are
 * made ({@code allreduceAsync} returns at once; the synchronous calls wait for theirs).
 *
 * <p><b>Failures.</b> A collective that sees no data move to or from its neighbours for {@code
 * timeout} (a dead, stopped or silent peer), or a connection closed or reset, fails with an {@link
 * org.ndrt.BackendException} (the IOException as cause). The communicator is then broken: it closes
 * its sockets at once, so its neighbours fail too instead of waiting for their own timeouts, and
 * every later call fails. Bad arguments are {@link IllegalArgumentException}s on the calling thread;
 * a dtype allreduce does not support is an {@link UnsupportedOperationException}.
 *
 * <p>The hosts must share one byte order (checked at connection). {@link #close()} closes the
 * sockets and ends the worker thread; a collective still in flight then fails (and so do the
 * peers'). A communicator never closed is released after the garbage collector finds it
 * unreachable.
 */
public final class TcpCommunicator implements Collectives {
  /** The bytes copied between the tensors and the host buffers at a time. */
  public static final int CHUNK_BYTES = 1 << 20;

  private static final int KIND_ALLREDUCE = 1;
  private static final int KIND_BROADCAST = 2;
  private static final int KIND_BARRIER = 3;
  private static final int HEADER_LONGS = 5; // kind, dtype, op or root, element count, shape hash
  private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);

  private final int rank;
  private final int size;
  private final long timeoutNanos;
  private final Io io;
  private final Cleaner.Cleanable cleanable;
  private volatile boolean closed;
  private volatile BackendException broken;
  // the worker thread's
  private final ByteBuffer acc;
  private final ByteBuffer recv;
  private final ByteBuffer headOut = ByteBuffer.allocateDirect(8 * HEADER_LONGS).order(ByteOrder.nativeOrder());
  private final ByteBuffer headIn = ByteBuffer.allocateDirect(8 * HEADER_LONGS).order(ByteOrder.nativeOrder());
  private int crashAfter = -1; // test hook: exchanges until this rank drops its connections as if it died

  /** The sockets, selector and worker thread (what close() and the Cleaner release); no reference to the communicator. */
  private static final class Io implements Runnable {
    final SocketChannel toNext;
    final SocketChannel fromPrev;
    final Selector selector;
    final SelectionKey sendKey;
    final SelectionKey recvKey;
    final ThreadPoolExecutor worker;

    Io(SocketChannel toNext, SocketChannel fromPrev, String name) throws IOException {
      this.toNext = toNext;
      this.fromPrev = fromPrev;
      if (toNext != null) {
        selector = Selector.open();
        sendKey = toNext.register(selector, 0);
        recvKey = fromPrev.register(selector, 0);
      } else {
        selector = null;
        sendKey = null;
        recvKey = null;
      }
      worker = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
      });
    }

    void closeSockets() {
      TcpRendezvous.closeQuietly(toNext);
      TcpRendezvous.closeQuietly(fromPrev);
      TcpRendezvous.closeQuietly(selector);
    }

    @Override
    public void run() {
      for (Runnable never : worker.shutdownNow()) {
        ((Future<?>) never).cancel(false); // its Pending's await() must not wait forever
      }
      closeSockets();
    }
  }

  private TcpCommunicator(int rank, int size, long timeoutNanos, SocketChannel toNext, SocketChannel fromPrev)
      throws IOException {
    this.rank = rank;
    this.size = size;
    this.timeoutNanos = timeoutNanos;
    this.io = new Io(toNext, fromPrev, "ndrt-tcp-rank" + rank);
    this.cleanable = Communicator.CLEANER.register(this, io);
    acc = ByteBuffer.allocateDirect(size > 1 ? CHUNK_BYTES : 8).order(ByteOrder.nativeOrder());
    recv = ByteBuffer.allocateDirect(size > 1 ? CHUNK_BYTES : 8).order(ByteOrder.nativeOrder());
  }

  // ----------------------------------------------------------------------------- start

  /**
   * A server socket for {@link #connect} on an ephemeral port of {@code host} (an address of this
   * machine that the other ranks can reach; not the wildcard address).
   */
  public static ServerSocketChannel listen(InetAddress host) throws IOException {
    if (host == null) {
      throw new IllegalArgumentException("TcpCommunicator.listen: the host address must not be null");
    }
    ServerSocketChannel ch = ServerSocketChannel.open();
    try {
      ch.bind(new InetSocketAddress(host, 0), 64);
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
    return ch;
  }

  /** {@link #listen(InetAddress)} on the loopback address (ranks on this machine only). */
  public static ServerSocketChannel listen() throws IOException {
    return listen(InetAddress.getLoopbackAddress());
  }

  /**
   * The {@code "host:port"} the other ranks reach {@code ch} at (IPv6: {@code "[addr]:port"}).
   *
   * @throws IllegalArgumentException if the channel is not bound, or bound to the wildcard address
   */
  public static String address(ServerSocketChannel ch) throws IOException {
    InetSocketAddress a = ch == null ? null : (InetSocketAddress) ch.getLocalAddress();
    if (a == null) {
      throw new IllegalArgumentException("TcpCommunicator.address: the server socket is not bound");
    }
    InetAddress host = a.getAddress();
    if (host.isAnyLocalAddress()) {
      throw new IllegalArgumentException("TcpCommunicator.address: the server socket is bound to the wildcard address "
          + host.getHostAddress() + ", which other hosts cannot connect to; listen on this host's own address");
    }
    String h = host.getHostAddress();
    return (h.indexOf(':') >= 0 ? "[" + h + "]" : h) + ":" + a.getPort();
  }

  /**
   * Joins the group: connects to the next rank's address, accepts the previous rank's connection on
   * {@code mine} and checks that both agree on the group (its size, the address list, the ranks).
   * Every rank of the group calls it with the same list. {@code mine} is closed when it returns or
   * throws.
   *
   * @param rank this rank, an index into {@code addresses}
   * @param addresses every rank's {@code "host:port"} (from {@link #address}) in rank order; one
   *     address: a group of one (no sockets)
   * @param mine this rank's server socket from {@link #listen}; its port is {@code addresses[rank]}'s
   * @param timeout how long the connection may take, and later how long a collective waits without
   *     any data moving before it fails
   * @throws IllegalArgumentException for a rank outside the list, a null, malformed or repeated
   *     address, a {@code mine} that is not {@code addresses[rank]}, or when the ranks disagree about
   *     the group (another list, another size: thrown on the ranks that see it)
   * @throws org.ndrt.BackendException when a peer cannot be reached or does not answer within
   *     {@code timeout}
   */
  public static TcpCommunicator connect(int rank, List<String> addresses, ServerSocketChannel mine, Duration timeout) {
    SocketChannel[] ring = null;
    try {
      if (mine == null) {
        throw new IllegalArgumentException("TcpCommunicator.connect: the server socket must not be null");
      }
      if (timeout == null || timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("TcpCommunicator.connect: the timeout must be positive, got " + timeout);
      }
      TcpRendezvous.Peer[] peers = TcpRendezvous.parse(addresses);
      if (rank < 0 || rank >= peers.length) {
        throw new IllegalArgumentException("TcpCommunicator.connect: rank " + rank + " is not in 0.." + (peers.length - 1)
            + " (" + peers.length + " addresses)");
      }
      InetSocketAddress local = mine.isOpen() ? (InetSocketAddress) mine.getLocalAddress() : null;
      if (local == null) {
        throw new IllegalArgumentException("TcpCommunicator.connect: the server socket is closed or not bound");
      }
      if (local.getPort() != peers[rank].port) {
        throw new IllegalArgumentException("TcpCommunicator.connect: rank " + rank + " listens on port " + local.getPort()
            + " but addresses[" + rank + "] is " + addresses.get(rank) + " (the list must be in rank order)");
      }
      long nanos = timeout.toNanos();
      if (peers.length > 1) {
        ring = TcpRendezvous.run(rank, peers, TcpRendezvous.hash(addresses), mine, nanos);
      }
      return new TcpCommunicator(rank, peers.length, nanos, ring == null ? null : ring[0], ring == null ? null : ring[1]);
    } catch (IOException e) {
      if (ring != null) {
        TcpRendezvous.closeQuietly(ring[0]);
        TcpRendezvous.closeQuietly(ring[1]);
      }
      throw backend("TcpCommunicator.connect (rank " + rank + "): " + e.getMessage(), e);
    } finally {
      TcpRendezvous.closeQuietly(mine);
    }
  }

  // ----------------------------------------------------------------------------- collectives

  @Override
  public int rank() {
    return rank;
  }

  @Override
  public int size() {
    return size;
  }

  /** How long a collective waits without any data moving before it fails. */
  public Duration timeout() {
    return Duration.ofNanos(timeoutNanos);
  }

  @Override
  public void allreduce(Tensor t, ReduceOp op) {
    Tensor[] ts = {tensor(t, "allreduce")};
    checkReduce(op, ts[0].dtype(), "allreduce");
    waitFor(submit(() -> allreduceNow(ts, op)));
  }

  @Override
  public void broadcast(Tensor t, int root) {
    Tensor[] ts = {tensor(t, "broadcast")};
    if (root < 0 || root >= size) {
      throw new IllegalArgumentException("TcpCommunicator.broadcast: root " + root + " is not a rank of this group (0.."
          + (size - 1) + ")");
    }
    waitFor(submit(() -> broadcastNow(ts, root)));
  }

  @Override
  public void barrier() {
    waitFor(submit(() -> guarded("barrier", () -> verify(KIND_BARRIER, 0, 0, 0, 0))));
  }

  /**
   * Starts an allreduce of {@code tensors} (one dtype) as one collective over their elements in
   * order, on the worker thread after the calls made before, and returns at once.
   */
  @Override
  public Collectives.Pending allreduceAsync(ReduceOp op, Tensor... tensors) {
    if (tensors == null || tensors.length == 0) {
      throw new IllegalArgumentException("TcpCommunicator.allreduceAsync: need at least one tensor");
    }
    Tensor[] ts = tensors.clone();
    DType d = tensor(ts[0], "allreduceAsync (tensor 0)").dtype();
    for (int i = 1; i < ts.length; ++i) {
      DType di = tensor(ts[i], "allreduceAsync (tensor " + i + ")").dtype();
      if (di != d) {
        throw new IllegalArgumentException("TcpCommunicator.allreduceAsync: the tensors must have one dtype; tensor 0 is "
            + d + ", tensor " + i + " " + di);
      }
    }
    checkReduce(op, d, "allreduceAsync");
    return new Pending(submit(() -> allreduceNow(ts, op)), ts);
  }

  /**
   * Closes the sockets and ends the worker thread (idempotent). Collectives queued and not started
   * fail with an IllegalStateException; one in flight fails with a BackendException.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    cleanable.clean();
    try {
      io.worker.awaitTermination(10, TimeUnit.SECONDS); // it ends at once: its sockets are closed
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return "TcpCommunicator[rank " + rank + " of " + size + (closed ? ", closed" : broken != null ? ", broken" : "") + "]";
  }

  /** Test hook: after {@code exchanges} more ring steps this rank drops its connections, as if its process died. */
  void crashAfterExchanges(int exchanges) {
    waitFor(submit(() -> crashAfter = exchanges));
  }

  // ----------------------------------------------------------------------------- worker side

  private interface IoBody {
    void run() throws IOException;
  }

  private static BackendException backend(String message, Throwable cause) {
    BackendException e = new BackendException(NdrtCConstants.NDRT_ERR_BACKEND, message);
    e.initCause(cause);
    return e;
  }

  /**
   * Runs one collective on the worker thread. Any failure but the ranks' disagreement (found while
   * the streams are still in step) breaks the communicator and closes its sockets.
   */
  private void guarded(String what, IoBody body) {
    BackendException b = broken;
    if (b != null) {
      throw backend("TcpCommunicator." + what + " (rank " + rank + "): broken by an earlier failure: " + b.getMessage(), b);
    }
    try {
      body.run();
    } catch (InvalidArgumentException e) {
      throw e;
    } catch (IOException | ClosedSelectorException | CancelledKeyException e) { // the last two: closed meanwhile
      String why = closed ? "the communicator was closed" : e.getMessage() != null ? e.getMessage() : e.toString();
      throw breakWith(backend("TcpCommunicator." + what + " (rank " + rank + " of " + size + "): " + why, e));
    } catch (RuntimeException | Error e) {
      breakWith(backend("TcpCommunicator." + what + " (rank " + rank + "): failed midway: " + e, e));
      throw e;
    }
  }

  private BackendException breakWith(BackendException e) {
    broken = e;
    io.closeSockets(); // the neighbours fail now rather than after their own timeout
    return e;
  }

  private void allreduceNow(Tensor[] ts, ReduceOp op) {
    guarded("allreduce", () -> {
      DType d = ts[0].dtype();
      try (TcpFlat f = new TcpFlat(ts)) {
        verify(KIND_ALLREDUCE, d.code(), op.code(), f.total, f.shapeHash);
        int s = d.itemSize();
        int chunk = CHUNK_BYTES / s;
        for (long c0 = 0; c0 < f.total && size > 1; c0 += chunk) {
          int n = (int) Math.min(chunk, f.total - c0);
          f.read(c0, n, acc);
          ring(n, d, op);
          f.write(c0, n, acc);
        }
        f.writeBack();
      }
    });
  }

  /** Reduce-scatter then allgather over the ring of the {@code n} elements in {@code acc}. */
  private void ring(int n, DType d, ReduceOp op) throws IOException {
    int s = d.itemSize();
    for (int k = 0; k < size - 1; ++k) {
      int send = mod(rank - k);
      int got = mod(rank - k - 1);
      int gs = segment(got, n);
      int gl = segment(got + 1, n) - gs;
      exchange(piece(acc, send, n, s), recv.slice(0, gl * s));
      TcpReduce.into(d, op, acc, gs * s, recv, gl);
    }
    int own = mod(rank + 1); // fully reduced here only
    if (op == ReduceOp.MEAN) {
      int os = segment(own, n);
      TcpReduce.divide(d, acc, os * s, segment(own + 1, n) - os, size);
    }
    for (int k = 0; k < size - 1; ++k) {
      exchange(piece(acc, mod(rank + 1 - k), n, s), piece(acc, mod(rank - k), n, s));
    }
  }

  /** Segment {@code i}'s first element of {@code n} cut into {@code size} nearly equal parts. */
  private int segment(int i, int n) {
    return (int) ((long) i * n / size);
  }

  private ByteBuffer piece(ByteBuffer b, int seg, int n, int itemSize) {
    int start = segment(seg, n);
    return b.slice(start * itemSize, (segment(seg + 1, n) - start) * itemSize);
  }

  private int mod(int r) {
    return ((r % size) + size) % size;
  }

  private void broadcastNow(Tensor[] ts, int root) {
    guarded("broadcast", () -> {
      DType d = ts[0].dtype();
      try (TcpFlat f = new TcpFlat(ts)) {
        verify(KIND_BROADCAST, d.code(), root, f.total, f.shapeHash);
        if (size == 1 || f.total == 0) {
          return;
        }
        int s = d.itemSize();
        int chunk = CHUNK_BYTES / s;
        int chunks = (int) ((f.total + chunk - 1) / chunk);
        boolean forwards = mod(rank + 1) != root;
        ByteBuffer[] bufs = {acc, recv};
        int lastBytes = 0;
        for (int k = 0; k < chunks; ++k) {
          long c0 = (long) k * chunk;
          int n = (int) Math.min(chunk, f.total - c0);
          if (rank == root) {
            f.read(c0, n, acc);
            exchange(acc.slice(0, n * s), NOTHING);
          } else { // receive chunk k while forwarding chunk k - 1
            ByteBuffer out = forwards && k > 0 ? bufs[(k - 1) % 2].slice(0, lastBytes) : NOTHING;
            exchange(out, bufs[k % 2].slice(0, n * s));
            f.write(c0, n, bufs[k % 2]);
          }
          lastBytes = n * s;
        }
        if (rank != root && forwards) {
          exchange(bufs[(chunks - 1) % 2].slice(0, lastBytes), NOTHING);
        }
        f.writeBack();
      }
    });
  }

  /**
   * Sends this rank's description of the collective around the ring (an allgather of headers); when
   * they differ every rank throws the same InvalidArgumentException. Also a barrier: after it each
   * rank has heard, through the ring, from every other.
   */
  private void verify(int kind, int dtype, int arg, long numel, long shapeHash) throws IOException {
    if (size == 1) {
      return;
    }
    long[][] all = new long[size][];
    all[rank] = new long[] {kind, dtype, arg, numel, shapeHash};
    for (int k = 0; k < size - 1; ++k) {
      headOut.clear();
      for (long v : all[mod(rank - k)]) {
        headOut.putLong(v);
      }
      headOut.flip();
      headIn.clear();
      exchange(headOut, headIn);
      long[] h = new long[HEADER_LONGS];
      for (int i = 0; i < HEADER_LONGS; ++i) {
        h[i] = headIn.getLong(8 * i);
      }
      all[mod(rank - k - 1)] = h;
    }
    for (long[] h : all) {
      if (!Arrays.equals(h, all[0])) {
        StringBuilder m = new StringBuilder("TcpCommunicator: the ranks called different collectives:");
        for (int r = 0; r < size; ++r) {
          m.append(r == 0 ? " " : "; ").append("rank ").append(r).append(' ').append(describe(all[r]));
          if (all[r][3] == all[0][3] && all[r][4] != all[0][4]) {
            m.append(" (another shape than rank 0's)");
          }
        }
        throw new InvalidArgumentException(NdrtCConstants.NDRT_ERR_INVALID_ARGUMENT, m.toString());
      }
    }
  }

  private static String describe(long[] h) {
    switch ((int) h[0]) {
      case KIND_ALLREDUCE:
        return "allreduce " + ReduceOp.values()[opIndex((int) h[2])] + " of " + h[3] + " " + DType.of((int) h[1]).shortName()
            + " elements";
      case KIND_BROADCAST:
        return "broadcast from rank " + h[2] + " of " + h[3] + " " + DType.of((int) h[1]).shortName() + " elements";
      default:
        return "barrier";
    }
  }

  private static int opIndex(int code) {
    for (ReduceOp o : ReduceOp.values()) {
      if (o.code() == code) {
        return o.ordinal();
      }
    }
    return 0;
  }

  /**
   * Sends {@code out} to the next rank while receiving {@code in} from the previous one (both at
   * once, so no rank waits for a peer that waits for it). Fails after {@code timeout} without any
   * byte moving either way.
   */
  private void exchange(ByteBuffer out, ByteBuffer in) throws IOException {
    long deadline = System.nanoTime() + timeoutNanos;
    while (out.hasRemaining() || in.hasRemaining()) {
      if (closed) {
        throw new AsynchronousCloseException();
      }
      boolean moved = false;
      if (out.hasRemaining() && io.toNext.write(out) > 0) {
        moved = true;
      }
      if (in.hasRemaining()) {
        int r = io.fromPrev.read(in);
        if (r < 0) {
          throw new EOFException("rank " + mod(rank - 1) + " closed the connection (it failed, was closed or died)");
        }
        moved |= r > 0;
      }
      if (moved) {
        deadline = System.nanoTime() + timeoutNanos;
        continue;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new SocketTimeoutException("no data moved for " + timeout().toMillis() + " ms ("
            + (in.hasRemaining() ? "waiting for rank " + mod(rank - 1) : "sending to rank " + mod(rank + 1))
            + "): a peer died, stopped or does not make this collective");
      }
      io.sendKey.interestOps(out.hasRemaining() ? SelectionKey.OP_WRITE : 0);
      io.recvKey.interestOps(in.hasRemaining() ? SelectionKey.OP_READ : 0);
      io.selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
      io.selector.selectedKeys().clear();
    }
    if (crashAfter > 0 && --crashAfter == 0) {
      io.closeSockets();
      throw new IOException("test: this rank dropped its connections (crashAfterExchanges)");
    }
  }

  // ----------------------------------------------------------------------------- caller side

  private Future<?> submit(Runnable task) {
    if (closed) {
      throw new IllegalStateException("TcpCommunicator: closed");
    }
    try {
      return io.worker.submit(task);
    } catch (RejectedExecutionException e) {
      throw new IllegalStateException("TcpCommunicator: closed", e);
    }
  }

  /** Waits for a task of the worker (through interrupts: its tensors are in use until it ends); throws its error. */
  private static void waitFor(Future<?> f) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          f.get();
          return;
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (CancellationException e) {
          throw new IllegalStateException("TcpCommunicator: closed before the collective ran", e);
        } catch (ExecutionException e) {
          Throwable c = e.getCause();
          if (c instanceof RuntimeException) {
            throw (RuntimeException) c;
          }
          if (c instanceof Error) {
            throw (Error) c;
          }
          throw new IllegalStateException(c);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static Tensor tensor(Tensor t, String what) {
    if (t == null) {
      throw new IllegalArgumentException("TcpCommunicator." + what + ": the tensor must not be null");
    }
    t.handle(); // fails now if closed
    return t;
  }

  private static void checkReduce(ReduceOp op, DType d, String what) {
    if (op == null) {
      throw new IllegalArgumentException("TcpCommunicator." + what + ": the reduce op must not be null");
    }
    if (d != DType.F32 && d != DType.F64 && d != DType.I32 && d != DType.I64) {
      throw new UnsupportedOperationException("TcpCommunicator." + what + ": dtype " + d.shortName()
          + " is not supported (f32, f64, i32, i64)");
    }
    if (op == ReduceOp.MEAN && !d.isFloatingPoint()) {
      throw new IllegalArgumentException("TcpCommunicator." + what + ": MEAN needs a float dtype, got " + d.shortName());
    }
  }

  /** An allreduceAsync in flight on the worker thread. */
  private static final class Pending implements Collectives.Pending {
    private final Future<?> future;
    private Tensor[] tensors; // reachable until the collective completed
    private boolean awaited;
    private boolean released;
    private RuntimeException failure;

    Pending(Future<?> future, Tensor[] tensors) {
      this.future = future;
      this.tensors = tensors;
    }

    @Override
    public void await() {
      if (!awaited) {
        try {
          waitFor(future);
        } catch (RuntimeException e) {
          failure = e;
        } finally {
          awaited = true;
          tensors = null;
        }
      }
      if (failure != null) {
        throw failure;
      }
    }

    @Override
    public boolean isDone() {
      return awaited || future.isDone();
    }

    @Override
    public void close() {
      if (released) {
        return;
      }
      released = true;
      if (!awaited) {
        await();
      }
    }
  }
}
