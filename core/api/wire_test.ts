import assert from "node:assert/strict";
import { startRecordingProxy } from "../testing/mod.ts";
import {
  checkCollectorProof,
  collectorBaseUrl,
  collectorMcpUrl,
  collectorProof,
  type EventQuery,
  eventQueryOf,
  eventQueryString,
  HELLO_NONCE_PATTERN,
  helloPath,
  impostorMessage,
  memoryPath,
  newHelloNonce,
  portAccepts,
  readHelloProof,
  readRetrievalContext,
  readToken,
  ROUTES,
} from "./wire.ts";

Deno.test("the ingest flags round-trip between the client and the server", () => {
  for (const query of ["retrieve", "retrieve-start", "resume", "history", ""] as EventQuery[]) {
    const url = new URL(`http://x${ROUTES.events}${eventQueryString(query)}`);
    assert.equal(url.pathname, "/v1/events");
    assert.equal(eventQueryOf(url.searchParams), query);
  }
  assert.equal(eventQueryString("retrieve"), "?retrieve=true");
  assert.equal(eventQueryOf(new URLSearchParams("retrieve=yes")), "");
  // A collector that knows no session-start block with prompts still answers the prompt.
  assert.match(eventQueryString("retrieve-start"), /^\?retrieve=true&/);
  assert.equal(eventQueryOf(new URLSearchParams("context=start")), "");
});

Deno.test("URLs: IPv6 hosts are bracketed, record ids are encoded", () => {
  assert.equal(collectorBaseUrl("127.0.0.1", 21100), "http://127.0.0.1:21100");
  assert.equal(collectorBaseUrl("::1", 8), "http://[::1]:8");
  assert.equal(collectorMcpUrl("::1", 8), "http://[::1]:8/v1/mcp");
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

Deno.test("the hello: a fresh nonce, an HMAC of label, port and nonce, checked in full", async () => {
  const nonce = newHelloNonce();
  assert.match(nonce, HELLO_NONCE_PATTERN);
  assert.notEqual(newHelloNonce(), nonce);
  assert.equal(helloPath(nonce), `/hello?nonce=${nonce}`);
  // HMAC-SHA256("tok", "kiro-learn-collector\n21100\n" + 32 zeros), computed independently.
  const zeros = "0".repeat(32);
  const known = await collectorProof("tok", { port: 21100, nonce: zeros });
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode("tok"),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign(
    "HMAC",
    key,
    new TextEncoder().encode(`kiro-learn-collector\n21100\n${zeros}`),
  );
  assert.equal(
    known,
    Array.from(new Uint8Array(mac), (b) => b.toString(16).padStart(2, "0")).join(""),
  );
  const challenge = { port: 21100, nonce };
  const proof = await collectorProof("tok", challenge);
  assert.equal(await checkCollectorProof("tok", { ...challenge, proof }), true);
  for (
    const [token, other, answer] of [
      ["other", challenge, proof],
      ["tok", { port: 21101, nonce }, proof],
      ["tok", { port: 21100, nonce: newHelloNonce() }, proof],
      ["tok", challenge, proof.slice(0, -1)],
      ["tok", challenge, proof.toUpperCase()],
      ["tok", challenge, null],
    ] as const
  ) {
    assert.equal(
      await checkCollectorProof(token, { ...other, proof: answer }),
      false,
      `${token} ${answer}`,
    );
  }
  assert.equal(readHelloProof(`{"proof":"${proof}"}`), proof);
  assert.equal(readHelloProof({ proof }), proof);
  assert.equal(readHelloProof("not json"), null);
  assert.equal(readHelloProof({ proof: 1 }), null);
});

Deno.test("impostorMessage names the address, the port to look up and what to do", () => {
  const message = impostorMessage("127.0.0.1:21100");
  assert.match(message, /127\.0\.0\.1:21100 could not prove/);
  assert.match(message, /lsof -i :21100/);
  assert.match(message, /kiro-learn install/);
});

Deno.test("portAccepts: true while something listens on the port, false once it is gone", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  const accepted = (async () => {
    for await (const conn of listener) conn.close();
  })();
  assert.equal(await portAccepts("127.0.0.1", port), true);
  listener.close();
  await accepted.catch(() => {});
  assert.equal(await portAccepts("127.0.0.1", port), false);
});

Deno.test("fetchCollector never goes through a proxy, whatever the proxy variables say", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("direct"),
  );
  await using proxy = startRecordingProxy({ forward: true });
  const probe = new URL("./testdata/proxy_probe.ts", import.meta.url).pathname;
  const run = async (how: string) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-net", "--allow-env", probe, `127.0.0.1:${server.addr.port}`, how],
      env: proxy.env,
    }).output();
    return new TextDecoder().decode(out.stdout).trim();
  };
  try {
    // The control: a plain fetch hands the bearer token to the proxy (which relays it).
    assert.equal(await run("plain"), "direct");
    assert.equal(
      proxy.seen.length,
      1,
      "the plain fetch did not use the proxy: this proves nothing",
    );
    assert.ok(proxy.seen[0].authorization);
    assert.equal(await run("pinned"), "direct");
    assert.equal(proxy.seen.length, 1, `the proxy saw ${JSON.stringify(proxy.seen)}`);
  } finally {
    await server.shutdown();
  }
});
