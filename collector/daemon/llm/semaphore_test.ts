import assert from "node:assert/strict";
import fc from "fast-check";
import { Semaphore } from "./semaphore.ts";

Deno.test("never more than N holders, every task runs, FIFO order", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 4 }),
      fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 20 }),
      async (max, delays) => {
        const sem = new Semaphore(max);
        let active = 0;
        let peak = 0;
        const started: number[] = [];
        await Promise.all(delays.map((d, i) =>
          sem.run(async () => {
            started.push(i);
            active++;
            peak = Math.max(peak, active);
            await new Promise((r) => setTimeout(r, d));
            active--;
          })
        ));
        assert.ok(peak <= max);
        assert.deepEqual(started, delays.map((_, i) => i));
        assert.equal(sem.inUse, 0);
      },
    ),
    { numRuns: 30 },
  );
});

Deno.test("a throwing task releases its slot", async () => {
  const sem = new Semaphore(1);
  await assert.rejects(sem.run(() => Promise.reject(new Error("boom"))));
  assert.equal(await sem.run(() => Promise.resolve(7)), 7);
});
