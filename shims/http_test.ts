import assert from "node:assert/strict";
import fc from "fast-check";
import { httpPost, HttpTimeoutError, parseResponse } from "./http.ts";

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
  await assert.rejects(
    httpPost({ hostname: "127.0.0.1", port }, "/", { headers: {}, body: "", timeoutMs: 1000 }),
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
