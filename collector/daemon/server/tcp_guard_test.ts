import assert from "node:assert/strict";
import { startFlood, startTestDaemon } from "../../tooling/testing/mod.ts";
import { bindTcpGuard, startTcpGuard, TCP_GUARD_LIMITS } from "./tcp_guard.ts";

/** A server on a Unix socket in a fresh folder, answering with the request's Host header. */
async function socketServer() {
  const dir = await Deno.makeTempDir({ prefix: "kl-guard-" });
  const path = `${dir}/s.sock`;
  const server = Deno.serve(
    { path, onListen() {} },
    (request) =>
      new Response(`host=${request.headers.get("host")} path=${new URL(request.url).pathname}`),
  );
  return {
    path,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("the guard relays requests as sent, and holds no more connections than its bound", async () => {
  await using upstream = await socketServer();
  const guard = startTcpGuard(bindTcpGuard({ hostname: "127.0.0.1", port: 0 }), {
    upstream: upstream.path,
    limits: { maxConnections: 16, firstByteMs: 60_000 },
  });
  const port = guard.addr.port;
  try {
    const client = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });
    const ask = async () => {
      const res = await fetch(`http://127.0.0.1:${port}/x`, { client });
      return await res.text();
    };
    assert.equal(await ask(), `host=127.0.0.1:${port} path=/x`);
    {
      // A real flood from another process: 200 idle connections against a bound of 16.
      await using flood = await startFlood(port, { connections: 200 });
      assert.ok(flood.opened >= 100, `only ${flood.opened} connections opened`);
      for (let i = 0; i < 5; i++) assert.equal(await ask(), `host=127.0.0.1:${port} path=/x`);
      assert.ok(guard.connections() <= 16, `${guard.connections()} held`);
      assert.ok(guard.dropped() > 0);
    }
    client.close();
  } finally {
    await guard.close();
  }
});

Deno.test("a connection that sends nothing is closed after firstByteMs", async () => {
  await using upstream = await socketServer();
  const guard = startTcpGuard(bindTcpGuard({ hostname: "127.0.0.1", port: 0 }), {
    upstream: upstream.path,
    limits: { firstByteMs: 200 },
  });
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: guard.addr.port });
    // The guard closes it: the read ends (EOF or reset) instead of waiting forever.
    const ended = await Promise.race([
      conn.read(new Uint8Array(16)).then(() => true, () => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), 30_000)),
    ]);
    conn.close();
    assert.ok(ended, "the silent connection was still open after 30 s");
    assert.equal(guard.connections(), 0);
  } finally {
    await guard.close();
  }
});

Deno.test({
  name:
    "the real collector survives a flood past its descriptor limit and keeps answering its owner",
  sanitizeResources: false,
}, async () => {
  // 512 descriptors (soft and hard): the flood holds three times that many connections.
  await using daemon = await startTestDaemon({ fileLimit: 512 });
  const limits = await Deno.readTextFile(`/proc/${daemon.pid()}/limits`);
  assert.match(limits, /Max open files\s+512\s+512/);
  // From another account (nobody) when the test runs as root.
  await using flood = await startFlood(daemon.port, { connections: 1536 });
  for (let i = 0; i < 10; i++) {
    const res = await daemon.fetch("/v1/stats");
    assert.equal(res.status, 200);
    await res.body?.cancel();
  }
  assert.ok(flood.opened >= 1024, `only ${flood.opened} connections opened`);
  const fds = [...Deno.readDirSync(`/proc/${daemon.pid()}/fd`)].length;
  assert.ok(fds < 512, `${fds} descriptors open`);
  assert.ok(fds < 3 * TCP_GUARD_LIMITS.maxConnections + 100, `${fds} descriptors open`);
});

Deno.test("close ends the guard under a flood, without waiting for its connections to time out", async () => {
  await using upstream = await socketServer();
  const guard = startTcpGuard(bindTcpGuard({ hostname: "127.0.0.1", port: 0 }), {
    upstream: upstream.path,
    limits: { maxConnections: 4, firstByteMs: 600_000 },
  });
  await using _flood = await startFlood(guard.addr.port, { connections: 50 });
  const timeout = Promise.withResolvers<boolean>();
  const timer = setTimeout(() => timeout.resolve(false), 60_000);
  const closed = await Promise.race([guard.close().then(() => true), timeout.promise]);
  clearTimeout(timer);
  assert.ok(closed, "close() still waiting after 60 s");
  assert.equal(guard.connections(), 0);
});
