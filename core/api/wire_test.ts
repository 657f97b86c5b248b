import assert from "node:assert/strict";
import {
  collectorBaseUrl,
  type EventQuery,
  eventQueryOf,
  eventQueryString,
  memoryPath,
  readRetrievalContext,
  readToken,
  ROUTES,
} from "./wire.ts";

Deno.test("the ingest flags round-trip between the client and the server", () => {
  for (const query of ["retrieve", "resume", ""] as EventQuery[]) {
    const url = new URL(`http://x${ROUTES.events}${eventQueryString(query)}`);
    assert.equal(url.pathname, "/v1/events");
    assert.equal(eventQueryOf(url.searchParams), query);
  }
  assert.equal(eventQueryString("retrieve"), "?retrieve=true");
  assert.equal(eventQueryOf(new URLSearchParams("retrieve=yes")), "");
});

Deno.test("URLs: IPv6 hosts are bracketed, record ids are encoded", () => {
  assert.equal(collectorBaseUrl("127.0.0.1", 21100), "http://127.0.0.1:21100");
  assert.equal(collectorBaseUrl("::1", 8), "http://[::1]:8");
  assert.equal(memoryPath("a/b"), "/v1/memories/a%2Fb");
});

Deno.test("readRetrievalContext reads retrieval.context and nothing else", () => {
  assert.equal(readRetrievalContext({ retrieval: { context: "ctx" } }), "ctx");
  assert.equal(readRetrievalContext({ retrieval: { context: 3 } }), null);
  assert.equal(readRetrievalContext({ retrieval: null }), null);
  assert.equal(readRetrievalContext("text"), null);
  assert.equal(readRetrievalContext(null), null);
});

Deno.test("readToken: the trimmed token, null when absent or empty", async () => {
  const dir = await Deno.makeTempDir();
  assert.equal(readToken(`${dir}/token`), null);
  await Deno.writeTextFile(`${dir}/token`, "abc\n");
  assert.equal(readToken(`${dir}/token`), "abc");
  await Deno.writeTextFile(`${dir}/token`, "  \n");
  assert.equal(readToken(`${dir}/token`), null);
  await Deno.remove(dir, { recursive: true });
});
