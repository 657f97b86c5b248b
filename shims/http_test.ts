import assert from "node:assert/strict";
import fc from "fast-check";
import { HttpNotApprovedError, httpPost, HttpTimeoutError, parseResponse } from "./http.ts";

const enc = new TextEncoder();

Deno.test("httpPost: request line, headers and body reach the server; JSON and streamed answers read whole", async () => {
  const seen: { url: string; host: string | null; auth: string | null; body: string }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    seen.push({
      url: req.url,
      host: req.headers.get("host"),
      auth: req.headers.get("authorization"),
      body: await req.text(),
    });
    if (new URL(req.url).pathname === "/stream") {
      // No Content-Length: sent chunked.
      return new Response(
        new ReadableStream({
          start(c) {
            c.enqueue(enc.encode('{"a":'));
            c.enqueue(enc.encode('"ü"}'));
            c.close();
          },
        }),
      );
    }
    return Response.json({ ok: "✓".repeat(50_000) }, { status: 201 });
  });
  try {
    const target = { hostname: "127.0.0.1", port: server.addr.port };
    const res = await httpPost(target, "/v1/events?retrieve=true", {
      headers: { Authorization: "Bearer t" },
      body: '{"x":"é"}',
      timeoutMs: 2000,
    });
    assert.equal(res.status, 201);
    assert.equal(JSON.parse(res.body).ok.length, 50_000);
    assert.deepEqual(seen[0], {
      url: `http://127.0.0.1:${server.addr.port}/v1/events?retrieve=true`,
      host: `127.0.0.1:${server.addr.port}`,
      auth: "Bearer t",
      body: '{"x":"é"}',
    });
    const streamed = await httpPost(target, "/stream", { headers: {}, body: "", timeoutMs: 2000 });
    assert.deepEqual(JSON.parse(streamed.body), { a: "ü" });
  } finally {
    await server.shutdown();
  }
});

Deno.test("httpPost: nothing listening is ConnectionRefused; silence is a timeout", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) held.push(conn);
  })();
  try {
    await assert.rejects(
      httpPost({ hostname: "127.0.0.1", port }, "/", { headers: {}, body: "", timeoutMs: 150 }),
      HttpTimeoutError,
    );
  } finally {
    listener.close();
    for (const conn of held) conn.close();
    await accepting.catch(() => {});
  }
  // A port nobody listens on: one whose listener never accepted anything and is closed. (The
  // port above can still answer a connection with a reset for a moment while the accept loop's
  // pending accept lets go of it, which CI once hit.)
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const free = (closed.addr as Deno.NetAddr).port;
  closed.close();
  await assert.rejects(
    httpPost({ hostname: "127.0.0.1", port: free }, "/", {
      headers: {},
      body: "",
      timeoutMs: 1000,
    }),
    Deno.errors.ConnectionRefused,
  );
});

Deno.test("parseResponse: content-length, chunked with extensions, malformed", () => {
  const raw = (s: string) => enc.encode(s);
  assert.deepEqual(parseResponse(raw("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhiEXTRA")), {
    status: 200,
    body: "hi",
  });
  assert.deepEqual(
    parseResponse(
      raw(
        "HTTP/1.1 500 X\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
      ),
    ),
    { status: 500, body: "abcde" },
  );
  assert.throws(() => parseResponse(raw("garbage")), /malformed/);
  assert.throws(() => parseResponse(raw("SMTP 220\r\n\r\n")), /malformed/);
});

Deno.test("property: parseResponse either parses or throws an Error, never anything else", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
      try {
        const res = parseResponse(bytes);
        assert.ok(Number.isInteger(res.status));
      } catch (error) {
        assert.ok(error instanceof Error);
      }
    }),
  );
});

Deno.test("httpPost before: the POST follows on the same connection only when approved", async () => {
  const seen: { line: string; peer: number; auth: string | null; body: string }[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (req, info) => {
      const url = new URL(req.url);
      seen.push({
        line: `${req.method} ${url.pathname}${url.search}`,
        peer: info.remoteAddr.port,
        auth: req.headers.get("authorization"),
        body: await req.text(),
      });
      if (url.pathname === "/first") return Response.json({ answer: url.search.slice(1) });
      if (url.pathname === "/first-chunked") {
        return new Response(
          new ReadableStream({
            start(c) {
              c.enqueue(enc.encode('{"answer":'));
              c.enqueue(enc.encode('"yes"}'));
              c.close();
            },
          }),
        );
      }
      return Response.json({ posted: true });
    },
  );
  const target = { hostname: "127.0.0.1", port: server.addr.port };
  const post = (first: string) =>
    httpPost(target, "/post", {
      headers: { Authorization: "Bearer secret" },
      body: "event",
      timeoutMs: 5000,
      before: { path: first, approve: (r) => r.status === 200 && r.body.includes('"yes"') },
    });
  try {
    for (const first of ["/first?yes", "/first-chunked"]) {
      seen.length = 0;
      const res = await post(first);
      assert.deepEqual(JSON.parse(res.body), { posted: true });
      assert.deepEqual(seen.map((s) => [s.line, s.auth, s.body]), [
        [`GET ${first}`, null, ""],
        ["POST /post", "Bearer secret", "event"],
      ]);
      assert.equal(seen[0].peer, seen[1].peer, "one connection for both requests");
    }
    seen.length = 0;
    await assert.rejects(post("/first?no"), HttpNotApprovedError);
    assert.deepEqual(seen.map((s) => [s.line, s.auth, s.body]), [["GET /first?no", null, ""]]);
  } finally {
    await server.shutdown();
  }
});
