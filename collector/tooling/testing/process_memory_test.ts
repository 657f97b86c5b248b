import assert from "node:assert/strict";
import { processMemoryKib } from "./process_memory.ts";

Deno.test("processMemoryKib: this process's resident set, at most its peak, as Deno measures it", () => {
  const rss = processMemoryKib(Deno.pid, "VmRSS");
  const peak = processMemoryKib(Deno.pid, "VmHWM");
  assert.ok(rss > 0 && rss <= peak, `${rss} / ${peak}`);
  // The same quantity Deno reports, within what allocations between the two reads can move.
  const deno = Deno.memoryUsage().rss / 1024;
  assert.ok(Math.abs(deno - rss) < 64 * 1024, `${deno} vs ${rss}`);
});
