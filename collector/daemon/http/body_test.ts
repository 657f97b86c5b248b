import assert from "node:assert/strict";
import { failOnHang } from "@kiro-learn/core/testing";
import { badString, MAX_JSON_DEPTH, nestingExceeds, readJsonBody } from "./body.ts";

function post(body: string, type = "application/json"): Request {
  return new Request("http://x/", { method: "POST", body, headers: { "content-type": type } });
}

async function error(result: Awaited<ReturnType<typeof readJsonBody>>) {
  assert.equal(result.ok, false);
  if (result.ok) throw new Error("unreachable");
  return { status: result.response.status, body: await result.response.json() };
}

Deno.test("valid JSON is read; the wrong type, size or syntax is a clear 4xx", async () => {
  assert.deepEqual(await readJsonBody(post('{"a":[1,"b"]}'), { maxBytes: 100 }), {
    ok: true,
    value: { a: [1, "b"] },
  });
  assert.equal(
    (await error(await readJsonBody(post("{}", "text/plain"), { maxBytes: 9 }))).status,
    415,
  );
  assert.equal(
    (await error(await readJsonBody(post("[" + "1,".repeat(50) + "1]"), { maxBytes: 20 }))).status,
    413,
  );
  assert.equal((await error(await readJsonBody(post("{"), { maxBytes: 9 }))).status, 400);
});

Deno.test("JSON nested deeper than the limit is refused before it is parsed", async () => {
  const deep = "[".repeat(400_000) + "]".repeat(400_000);
  const started = performance.now();
  const refused = await error(await readJsonBody(post(deep), { maxBytes: 1_000_000 }));
  assert.equal(refused.status, 400);
  assert.equal(refused.body.error, "JSON nested too deeply");
  // Linear: far below the ~1 s a recursive walk of this took (a hang guard, not a timing claim).
  assert.ok(performance.now() - started < 10_000);
  const ok = "[".repeat(MAX_JSON_DEPTH) + "]".repeat(MAX_JSON_DEPTH);
  assert.equal(nestingExceeds(ok, MAX_JSON_DEPTH), false);
  assert.equal(nestingExceeds(`["${"[".repeat(100)}"]`, MAX_JSON_DEPTH), false, "strings skipped");
});

Deno.test("NUL and lone surrogates are refused, never silently changed", async () => {
  const nul = await error(await readJsonBody(post('{"t":"a\\u0000b"}'), { maxBytes: 100 }));
  assert.equal(nul.status, 400);
  assert.match(nul.body.error, /NUL/);
  const lone = await error(await readJsonBody(post('{"t":"a\\ud800b"}'), { maxBytes: 100 }));
  assert.match(lone.body.error, /surrogate/);
  assert.equal(badString({ k: ["fine", { "ok😀": "😀" }] }), null);
  assert.match(badString({ ["k\u0000"]: 1 }) ?? "", /NUL/);
});

/**
 * Sends a request's headers and `partialBody` on a raw connection, then nothing; returns the
 * response once it has arrived whole (its Content-Length), and closes the connection.
 */
async function stallingClient(port: number, partialBody: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(
      new TextEncoder().encode(
        `POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${partialBody.length + 1000}\r\n\r\n` +
          partialBody,
      ),
    );
    let text = "";
    const buf = new Uint8Array(4096);
    while (true) {
      const n = await conn.read(buf);
      if (n === null) return text;
      text += new TextDecoder().decode(buf.subarray(0, n));
      const end = text.indexOf("\r\n\r\n");
      const length = /\r\ncontent-length: (\d+)\r\n/i.exec(text);
      if (end >= 0 && length && text.length >= end + 4 + Number(length[1])) return text;
    }
  } finally {
    conn.close();
  }
}

Deno.test("a body that stalls gets 408 and frees its handler (raw TCP client)", async () => {
  let handled = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const result = await readJsonBody(req, { maxBytes: 4096, timeoutMs: 200 });
    handled++;
    return result.ok ? Response.json(result.value) : result.response;
  });
  try {
    for (const partial of ["", '{"kind":"prompt","padding":"abc']) {
      const raw = await failOnHang(
        stallingClient(server.addr.port, partial),
        "a stalled request body",
      );
      assert.match(raw, /^HTTP\/1\.1 408 /, JSON.stringify(partial));
      assert.match(raw, /\r\nconnection: close\r\n/i);
      assert.match(raw, /"error":"request body timeout"/);
      assert.match(raw, /within 0\.2 s/);
    }
    assert.equal(handled, 2, "both handlers returned");
  } finally {
    await server.shutdown();
  }
});
