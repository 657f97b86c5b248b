import assert from "node:assert/strict";
import { startScriptedServer } from "./_scripted_server.ts";

Deno.test("scripted server: records every request before answering it with the current script", async () => {
  await using server = startScriptedServer(
    "first",
    (request, script) => Response.json({ script, path: request.pathname }),
  );
  const post = (body: string) =>
    fetch(`${server.origin}/v1/x?a=1`, { method: "POST", body }).then((r) => r.json());
  assert.deepEqual(await post('{"n":1}'), { script: "first", path: "/v1/x" });
  server.setScript("second");
  assert.deepEqual(await post("not json"), { script: "second", path: "/v1/x" });
  await (await fetch(`${server.origin}/`)).body?.cancel();
  assert.deepEqual(server.requests, [
    { method: "POST", path: "/v1/x?a=1", body: { n: 1 } },
    { method: "POST", path: "/v1/x?a=1", body: null },
    { method: "GET", path: "/", body: null },
  ]);
  assert.match(server.origin, /^http:\/\/127\.0\.0\.1:\d+$/);
});
