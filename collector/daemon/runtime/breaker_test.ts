import assert from "node:assert/strict";
import { type BreakerState, CircuitBreaker } from "./breaker.ts";

Deno.test("three failures open it; the cool-down half-opens it; a failed probe re-opens at once", () => {
  let now = 1_000;
  const changes: [string, BreakerState][] = [];
  const breaker = new CircuitBreaker({
    threshold: 3,
    cooldownMs: 100,
    now: () => now,
    onChange: (p, s) => changes.push([p, s]),
  });
  assert.equal(breaker.state("p"), "closed");
  breaker.recordFailure("p");
  breaker.recordFailure("p");
  assert.ok(breaker.allows("p"));
  breaker.recordFailure("p");
  assert.equal(breaker.state("p"), "open");
  assert.equal(breaker.allows("p"), false);
  assert.equal(breaker.state("other"), "closed", "projects are independent");
  now += 100;
  assert.equal(breaker.state("p"), "half_open");
  breaker.recordFailure("p");
  assert.equal(breaker.state("p"), "open", "one failed probe is enough");
  now += 100;
  breaker.recordSuccess("p");
  assert.equal(breaker.state("p"), "closed");
  assert.deepEqual(changes, [["p", "open"], ["p", "open"], ["p", "closed"]]);
});

Deno.test("statuses list projects with failures and when an open breaker closes", () => {
  const breaker = new CircuitBreaker({ threshold: 1, cooldownMs: 1000, now: () => 0 });
  breaker.recordFailure("p");
  assert.deepEqual(breaker.statuses(), [{
    project_id: "p",
    state: "open",
    failures: 1,
    open_until: new Date(1000).toISOString(),
  }]);
});
