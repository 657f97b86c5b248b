import assert from "node:assert/strict";
import { callEachInWorker, failOnHang, waitFor } from "./hang_guard.ts";

const FNS = new URL("./testdata/worker_fns.ts", import.meta.url);

Deno.test("failOnHang passes a settled result or error through", async () => {
  assert.equal(await failOnHang(Promise.resolve(7), "seven"), 7);
  await assert.rejects(failOnHang(Promise.reject(new Error("boom")), "boom"), /boom/);
});

Deno.test("failOnHang turns a promise that never settles into a named failure", async () => {
  await assert.rejects(
    failOnHang(new Promise<never>(() => {}), "the never promise", 50),
    /the never promise hung: still not settled after 50 ms/,
  );
});

Deno.test("callEachInWorker returns each result in order", async () => {
  assert.deepEqual(await callEachInWorker(FNS, "double", [1, 2, 3]), [2, 4, 6]);
});

Deno.test("callEachInWorker reports what the function threw", async () => {
  await assert.rejects(callEachInWorker(FNS, "fail", ["kaput"]), /fail\("kaput"\) threw: .*kaput/);
});

Deno.test("callEachInWorker ends a call that blocks its thread and names the input", async () => {
  await assert.rejects(
    callEachInWorker(FNS, "spinIf", [false, true], {
      limitMs: 300,
      describe: (spin) => (spin ? "the spinning input" : "the quick input"),
    }),
    /spinIf\(the spinning input\) hung/,
  );
});

Deno.test("waitFor returns the first value its check gives, and names what never came", async () => {
  let calls = 0;
  assert.equal(
    await waitFor(() => Promise.resolve(++calls === 3 ? "ready" : undefined), { intervalMs: 1 }),
    "ready",
  );
  assert.equal(calls, 3);
  await assert.rejects(
    waitFor(() => Promise.resolve(undefined), { timeoutMs: 20, intervalMs: 1, what: "the socket" }),
    /timed out waiting for the socket/,
  );
});
