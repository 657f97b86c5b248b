/**
 * The collector's TCP port, guarded against a connection flood from another local user.
 *
 * `Deno.serve` on the port accepts every connection and keeps it as long as the peer likes; about
 * 20,000 idle connections from any account ran the process out of file descriptors, and the
 * accept loop's `Too many open files (os error 24)` ended the collector, which freed the port
 * for an impostor. So the collector's HTTP server listens on Unix sockets only (the data dir is
 * 0700: no other user reaches them), and this guard owns the TCP port, relaying to a socket of its
 * own (`collector-tcp.sock`, apart from the hooks' `collector.sock`):
 *
 * - **Bounded**: at most `maxConnections` at once (each costs three descriptors: the peer, the
 *   relay to the socket, and the server's end of it: 128 of them and the collector's own ~35
 *   files stay under 512 descriptors). One more evicts a connection first: the
 *   oldest that never sent a byte (every client of ours sends its request at once; a flood's
 *   connections send nothing), else the one quiet the longest. The newest, a client's about to
 *   send its request, is never the one evicted, so the owner keeps being answered.
 * - **Idle timeouts**: a connection that sends nothing within `firstByteMs`, or on which nothing
 *   passes either way for `idleMs`, is closed (the viewer's live feed sends a heartbeat every
 *   15 s).
 * - **An accept error never ends the process**: it is logged (once a second at most) and the
 *   loop goes on after a short pause, the port still held.
 * - The soft `RLIMIT_NOFILE` is raised to the hard limit by Deno itself at start (1024:4096 gives
 *   4096); the daemon cannot read its limit (Deno refuses `/proc/self` without `--allow-all`),
 *   so the bound is fixed, well below any hard limit of 512 or more.
 *
 * Bytes are relayed as they are, both ways: the server sees exactly the request the client sent
 * (Host, Origin, token), so every check it makes on TCP requests holds.
 *
 * @module
 */

/** The guard's bounds. */
export interface TcpGuardLimits {
  /** Most connections held at once (default 128). */
  maxConnections: number;
  /** A connection that sends nothing for this long after it opened is closed (default 10 s). */
  firstByteMs: number;
  /** A connection on which nothing passes either way for this long is closed (default 5 min). */
  idleMs: number;
}

/** The default bounds. */
export const TCP_GUARD_LIMITS: Readonly<TcpGuardLimits> = Object.freeze({
  maxConnections: 128,
  firstByteMs: 10_000,
  idleMs: 300_000,
});

/** A running guard. */
export interface TcpGuard {
  /** The address it holds. */
  readonly addr: Deno.NetAddr;
  /** Connections held now. */
  connections(): number;
  /** Connections evicted or timed out so far. */
  dropped(): number;
  /** Releases the port (no new connection); the ones held go on. */
  stopAccepting(): Promise<void>;
  /** Releases the port and closes every connection still held. */
  close(): Promise<void>;
}

interface Relay {
  peer: Deno.TcpConn;
  upstream: Deno.UnixConn | null;
  opened: number;
  last: number;
  sentAny: boolean;
  closed: boolean;
}

/**
 * Binds `hostname:port` (throws `Deno.errors.AddrInUse` as `Deno.serve` would). The caller starts
 * relaying with {@linkcode startTcpGuard} once the server's socket listens: until then,
 * connections wait in the kernel's queue.
 */
export function bindTcpGuard(address: { hostname: string; port: number }): Deno.TcpListener {
  return Deno.listen({ hostname: address.hostname, port: address.port });
}

/** Relays every connection `listener` accepts to the Unix socket at `upstream`, bounded. */
export function startTcpGuard(
  listener: Deno.TcpListener,
  options: {
    upstream: string;
    limits?: Partial<TcpGuardLimits>;
    onAcceptError?: (error: unknown) => void;
  },
): TcpGuard {
  const limits = { ...TCP_GUARD_LIMITS, ...options.limits };
  const relays = new Set<Relay>();
  const running = new Set<Promise<void>>();
  let closing = false;
  const stopped = Promise.withResolvers<void>();
  let dropped = 0;
  let lastReported = 0;

  const end = (relay: Relay, counted: boolean) => {
    if (relay.closed) return;
    relay.closed = true;
    relays.delete(relay);
    if (counted) dropped++;
    for (const conn of [relay.peer, relay.upstream]) {
      try {
        conn?.close();
      } catch {
        // Already closed.
      }
    }
  };

  const evictFor = (newest: Relay) => {
    let victim: Relay | null = null;
    for (const relay of relays) {
      if (relay === newest) continue;
      const better = victim === null ||
        (relay.sentAny === victim.sentAny
          ? (relay.sentAny ? relay.last < victim.last : relay.opened < victim.opened)
          : !relay.sentAny);
      if (better) victim = relay;
    }
    if (victim) end(victim, true);
  };

  const relay = async (peer: Deno.TcpConn) => {
    // Small answers go out at once (no Nagle delay added by the relay).
    try {
      peer.setNoDelay(true);
    } catch {
      // Already gone.
    }
    const now = Date.now();
    const entry: Relay = {
      peer,
      upstream: null,
      opened: now,
      last: now,
      sentAny: false,
      closed: false,
    };
    relays.add(entry);
    while (relays.size > limits.maxConnections) evictFor(entry);
    try {
      // The server is reached only once the peer says something: a silent connection costs one
      // descriptor, not three.
      const first = new Uint8Array(64 * 1024);
      const n = await peer.read(first);
      if (n === null || entry.closed) return;
      entry.sentAny = true;
      entry.last = Date.now();
      const upstream = await Deno.connect({ transport: "unix", path: options.upstream });
      if (entry.closed) {
        // Evicted while connecting: `end` could not close what it did not have yet.
        upstream.close();
        return;
      }
      entry.upstream = upstream;
      await writeAll(upstream, first.subarray(0, n));
      await Promise.all([pump(entry, true), pump(entry, false)]);
    } catch {
      // A peer that went away, an eviction, a server shutting down: the relay just ends.
    } finally {
      end(entry, false);
    }
  };

  const pump = async (entry: Relay, fromPeer: boolean) => {
    const from: Deno.Conn = fromPeer ? entry.peer : entry.upstream!;
    const to: Deno.Conn = fromPeer ? entry.upstream! : entry.peer;
    const buffer = new Uint8Array(64 * 1024);
    while (!entry.closed) {
      const n = await from.read(buffer);
      if (n === null) {
        // A half-close goes through (a client may end its side after the request).
        if (!entry.closed) await to.closeWrite().catch(() => end(entry, false));
        return;
      }
      entry.last = Date.now();
      await writeAll(to, buffer.subarray(0, n));
    }
  };

  const sweep = setInterval(() => {
    const now = Date.now();
    for (const entry of relays) {
      if (!entry.sentAny && now - entry.opened > limits.firstByteMs) end(entry, true);
      else if (now - entry.last > limits.idleMs) end(entry, true);
    }
  }, Math.max(50, Math.min(1000, limits.firstByteMs / 4)));
  Deno.unrefTimer(sweep);

  const accepting = (async () => {
    while (!closing) {
      // A closed connection's descriptor is freed once its pending read has ended: under a flood,
      // new ones wait until the evicted have let go of theirs.
      while (running.size >= 2 * limits.maxConnections && !closing) {
        await Promise.race([...running, stopped.promise]);
      }
      let peer: Deno.TcpConn;
      try {
        peer = await listener.accept();
      } catch (error) {
        if (closing || error instanceof Deno.errors.BadResource) return;
        // Out of descriptors, say: the port stays ours, and the loop goes on.
        if (Date.now() - lastReported > 1000) {
          lastReported = Date.now();
          options.onAcceptError?.(error);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      const done = relay(peer);
      running.add(done);
      done.finally(() => running.delete(done));
    }
  })();

  const stopAccepting = async () => {
    closing = true;
    stopped.resolve();
    try {
      listener.close();
    } catch {
      // Already closed.
    }
    await accepting;
  };

  return {
    addr: listener.addr,
    connections: () => relays.size,
    dropped: () => dropped,
    stopAccepting,
    async close() {
      await stopAccepting();
      clearInterval(sweep);
      for (const entry of [...relays]) end(entry, false);
      await Promise.all([...running]);
    },
  };
}

async function writeAll(to: Deno.Conn, data: Uint8Array): Promise<void> {
  let written = 0;
  while (written < data.length) written += await to.write(data.subarray(written));
}
