import assert from "node:assert/strict";
import { checkCollectorProof, helloPath, newHelloNonce } from "../api/wire.ts";
import { withCollectorProof } from "./collector_stub.ts";

Deno.test("withCollectorProof answers the hello for its token and passes the rest on", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    withCollectorProof("the-token", () => new Response("scripted")),
  );
  try {
    const port = server.addr.port;
    const nonce = newHelloNonce();
    const hello = await (await fetch(`http://127.0.0.1:${port}${helloPath(nonce)}`)).json();
    assert.equal(await checkCollectorProof("the-token", { port, nonce, proof: hello.proof }), true);
    assert.equal(
      await checkCollectorProof("other-token", { port, nonce, proof: hello.proof }),
      false,
    );
    assert.equal(await (await fetch(`http://127.0.0.1:${port}/v1/stats`)).text(), "scripted");
  } finally {
    await server.shutdown();
  }
});
