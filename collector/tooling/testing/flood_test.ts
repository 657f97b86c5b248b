import assert from "node:assert/strict";
import { startFlood } from "./flood.ts";

Deno.test("a flood holds its connections until it is disposed of", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepted: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) accepted.push(conn);
  })();
  try {
    {
      await using flood = await startFlood(listener.addr.port, { connections: 50 });
      assert.equal(flood.opened, 50);
      const deadline = Date.now() + 30_000;
      while (accepted.length < 50) {
        assert.ok(Date.now() < deadline, `${accepted.length} accepted`);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    // Gone with the child: each accepted connection reads its end.
    for (const conn of accepted) assert.equal(await conn.read(new Uint8Array(8)), null);
  } finally {
    for (const conn of accepted) conn.close();
    listener.close();
    await accepting.catch(() => {});
  }
});
