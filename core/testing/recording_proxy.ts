/**
 * A local HTTP proxy that records what clients send it: the first line of each connection
 * (`CONNECT dl.deno.land:443 HTTP/1.1`, `GET http://127.0.0.1:21100/v1/stats HTTP/1.1`) and
 * whether it carried an `Authorization` header. With `forward`, a plain-HTTP request is then
 * relayed to the host it names, as a real forwarding proxy would (so a client that leaks
 * through it still works, and the leak is silent).
 *
 * @module
 */

/** One connection the proxy received. */
export interface ProxiedRequest {
  /** Its first line. */
  line: string;
  /** Whether its head held an `Authorization` header. */
  authorization: boolean;
}

/** A running recording proxy. */
export interface RecordingProxy extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Every connection so far. */
  seen: ProxiedRequest[];
  /** The proxy variables (upper and lower case) pointing at it, `NO_PROXY` empty. */
  env: Record<string, string>;
}

/** Starts a recording proxy on loopback; dispose it to stop it. */
export function startRecordingProxy(options: { forward?: boolean } = {}): RecordingProxy {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const url = `http://127.0.0.1:${listener.addr.port}`;
  const seen: ProxiedRequest[] = [];
  const open = new Set<Deno.Conn>();
  const handled: Promise<void>[] = [];
  const accepting = (async () => {
    for await (const conn of listener) {
      open.add(conn);
      handled.push(handle(conn, { seen, forward: options.forward ?? false, open }));
    }
  })();
  const env: Record<string, string> = { NO_PROXY: "", no_proxy: "" };
  for (const name of ["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"]) {
    env[name] = url;
    env[name.toLowerCase()] = url;
  }
  return {
    url,
    seen,
    env,
    async [Symbol.asyncDispose]() {
      listener.close();
      await accepting.catch(() => {});
      for (const conn of open) closeQuietly(conn);
      await Promise.all(handled);
    },
  };
}

async function handle(
  conn: Deno.Conn,
  options: { seen: ProxiedRequest[]; forward: boolean; open: Set<Deno.Conn> },
): Promise<void> {
  let upstream: Deno.Conn | null = null;
  try {
    const buffer = new Uint8Array(64 * 1024);
    const n = await conn.read(buffer);
    if (n === null) return;
    const head = new TextDecoder().decode(buffer.subarray(0, n));
    const line = head.split("\r\n")[0];
    options.seen.push({ line, authorization: /\r\nauthorization:/i.test(head) });
    const target = /^[A-Z]+ http:\/\/(\[[^\]]+\]|[^/:]+):(\d+)\//.exec(line);
    if (!options.forward || target === null) return;
    upstream = await Deno.connect({
      hostname: target[1].replace(/^\[|\]$/g, ""),
      port: Number(target[2]),
    });
    options.open.add(upstream);
    await upstream.write(buffer.subarray(0, n));
    await Promise.all([
      conn.readable.pipeTo(upstream.writable).catch(() => {}),
      upstream.readable.pipeTo(conn.writable).catch(() => {}),
    ]);
  } catch {
    // A client or upstream that went away: nothing more to record.
  } finally {
    closeQuietly(conn);
    if (upstream) closeQuietly(upstream);
    options.open.delete(conn);
    if (upstream) options.open.delete(upstream);
  }
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // Already closed (pipeTo closes what it finishes).
  }
}
