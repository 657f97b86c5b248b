import assert from "node:assert/strict";
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
