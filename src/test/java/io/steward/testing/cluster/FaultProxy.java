package io.steward.testing.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A TCP proxy on loopback between one client and the API server, with faults the test switches on
 * and off while traffic flows (as etcd's robustness tests put one between members). TLS passes
 * through untouched: the client still verifies the API server's certificate for 127.0.0.1.
 *
 * <ul>
 *   <li>{@link Mode#PASS}: bytes flow both ways as they come.
 *   <li>{@link Mode#BLACKHOLE}: bytes in both directions are read and dropped; connections stay
 *       open, so the client sees silence, as behind a partitioned network.
 *   <li>{@link #delayToServer}: every chunk from client to server is held for the given time
 *       before it is forwarded, in order (a slow or congested one-way path).
 *   <li>{@link Mode#HOLD}: what the client sends is kept, in order, and forwarded when the mode
 *       changes back, while what the server sends still flows (a one-way stall that then delivers
 *       everything at once: the client keeps hearing the API server, its requests do not arrive).
 *   <li>{@link #lingerAfterClientClose}: once the client has closed a connection, the server's side
 *       is closed only that long after the last byte was forwarded (a close that the network
 *       delays as it delayed the data), so the server serves what arrived instead of cancelling it.
 * </ul>
 */
public final class FaultProxy implements AutoCloseable {
  public enum Mode { PASS, BLACKHOLE, HOLD }

  private final ServerSocket listener;
  private final InetSocketAddress target;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final AtomicBoolean open = new AtomicBoolean(true);
  private final Object modeChanged = new Object();
  private volatile Mode mode = Mode.PASS;
  private volatile long delayToServerNanos;
  private volatile long latencyNanos;
  private volatile long lingerNanos;

  public FaultProxy(int targetPort) {
    this.target = new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort);
    try {
      this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Thread accept = new Thread(this::acceptLoop, "fault-proxy-accept-" + port());
    accept.setDaemon(true);
    accept.start();
  }

  public int port() {
    return listener.getLocalPort();
  }

  public String url() {
    return "https://127.0.0.1:" + port();
  }

  public void mode(Mode next) {
    synchronized (modeChanged) {
      mode = next;
      modeChanged.notifyAll();
    }
  }

  /** Holds every chunk from client to server for {@code delay} (zero: none). */
  public void delayToServer(Duration delay) {
    delayToServerNanos = delay.toNanos();
  }

  /** Holds every chunk in both directions for {@code latency} (zero: none): a slow API server. */
  public void latency(Duration latency) {
    latencyNanos = latency.toNanos();
  }

  /** After the client closed a connection, keeps the server's side open this long (zero: closes at once). */
  public void lingerAfterClientClose(Duration linger) {
    lingerNanos = linger.toNanos();
  }

  /** Drops every open connection (the client reconnects through the proxy as it is now). */
  public void resetConnections() {
    sockets.forEach(FaultProxy::closeQuietly);
    sockets.clear();
  }

  @Override
  public void close() {
    open.set(false);
    closeQuietly(listener);
    resetConnections();
    mode(Mode.PASS);
  }

  private void acceptLoop() {
    while (open.get()) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket();
        server.connect(target, 5_000);
        client.setTcpNoDelay(true);
        server.setTcpNoDelay(true);
        sockets.add(client);
        sockets.add(server);
        pump(client, server, true);
        pump(server, client, false);
      } catch (IOException e) {
        if (open.get()) {
          continue;
        }
        return;
      }
    }
  }

  /**
   * One direction of one connection: a reader that stamps chunks, and a writer that forwards them
   * when due. The server's side is closed only by the writer towards it, after everything the client
   * sent was forwarded.
   */
  private void pump(Socket from, Socket to, boolean toServer) {
    DelayQueue<Chunk> queue = new DelayQueue<>();
    Thread reader = new Thread(() -> {
      byte[] buffer = new byte[64 * 1024];
      try (InputStream in = from.getInputStream()) {
        for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
          if (mode == Mode.BLACKHOLE) {
            continue;
          }
          long delay = latencyNanos + (toServer ? delayToServerNanos : 0);
          queue.put(new Chunk(java.util.Arrays.copyOf(buffer, n), System.nanoTime() + delay));
        }
      } catch (IOException e) {
        // connection closed
      } finally {
        queue.put(Chunk.END);
      }
    }, "fault-proxy-read");
    Thread writer = new Thread(() -> {
      try {
        // Not closed on its own: closing a socket's stream closes the socket, and the server's side may linger.
        OutputStream out = to.getOutputStream();
        for (Chunk chunk = queue.take(); chunk != Chunk.END; chunk = queue.take()) {
          if (toServer) {
            awaitNotHeld();
          }
          if (mode == Mode.BLACKHOLE) {
            continue;
          }
          out.write(chunk.bytes());
          out.flush();
        }
      } catch (IOException e) {
        // connection closed
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        Socket client = toServer ? from : to;
        closeQuietly(client);
        if (toServer) {
          lingerThenClose(to);
        }
      }
    }, "fault-proxy-write");
    reader.setDaemon(true);
    writer.setDaemon(true);
    reader.start();
    writer.start();
  }

  private void lingerThenClose(Socket server) {
    long linger = lingerNanos;
    if (linger > 0 && open.get()) {
      try {
        TimeUnit.NANOSECONDS.sleep(linger);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    closeQuietly(server);
  }

  private void awaitNotHeld() throws InterruptedException {
    synchronized (modeChanged) {
      while (mode == Mode.HOLD && open.get()) {
        modeChanged.wait();
      }
    }
  }

  /** Bytes read at one time, due to be forwarded at {@code due} (System.nanoTime); order is kept by a sequence. */
  private record Chunk(byte[] bytes, long due, long sequence) implements Delayed {
    private static final java.util.concurrent.atomic.AtomicLong SEQUENCE = new java.util.concurrent.atomic.AtomicLong();
    static final Chunk END = new Chunk(new byte[0], 0, Long.MAX_VALUE);

    Chunk(byte[] bytes, long due) {
      this(bytes, due, SEQUENCE.incrementAndGet());
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(due - System.nanoTime(), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed other) {
      Chunk that = (Chunk) other;
      // Never reorder bytes of one stream: a later chunk waits for every earlier one.
      return Long.compare(sequence, that.sequence);
    }
  }

  private static void closeQuietly(java.io.Closeable closeable) {
    try {
      closeable.close();
    } catch (IOException e) {
      // already closed
    }
  }
}
