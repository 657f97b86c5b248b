// The large-pull scenario at a size a test can afford: B's store already holds 50k records and
// B pulls A's 2k while serving its own session. What must hold whatever the machine's load: none
// of B's own requests fails, B logs no warning or error (its background jobs included), and
// every record arrives. How fast is the benchmark's business (`deno task bench team`).
import assert from "node:assert/strict";
import { formatPullReport, runPullBench } from "./team_pull_bench.ts";

Deno.test("a pull into a big store: B's own ingest and retrieval never fail, nothing is lost", async () => {
  const report = await runPullBench({ local: 50_000, pulled: 2_000, burst: 200 });
  const figures = formatPullReport(report);
  assert.equal(report.failed_requests, 0, `${figures}\n${report.failures.join("\n")}`);
  assert.ok(report.requests > 0);
  assert.equal(report.logged_problems, 0, `${figures}\n${report.problems.join("\n")}`);
  assert.equal(report.missing, 0, figures);
  assert.match(figures, /^team pull: 2000 records into a store of 50000/);
});
