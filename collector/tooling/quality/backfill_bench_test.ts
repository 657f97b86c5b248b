import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { makeRecord, runDenoScript } from "@kiro-learn/core/testing";
import { cpuSeconds, evenly, parseBackfillArgs } from "./backfill_bench.ts";

const SCRIPT = fileURLToPath(new URL("./backfill_bench.ts", import.meta.url));
const REPO_ROOT = join(dirname(SCRIPT), "..", "..", "..");

Deno.test("parseBackfillArgs: full and quick sizes, flags, unknown or bad arguments", () => {
  const full = parseBackfillArgs([]);
  assert.equal(full.mode, "full");
  assert.equal(full.records, 1_500);
  assert.equal(full.out, join(REPO_ROOT, ".bench", "backfill.json"));
  assert.deepEqual(parseBackfillArgs(["--quick", "--records=7", "--data=/d", "--out=/o"]), {
    mode: "quick",
    records: 7,
    data: "/d",
    out: "/o",
  });
  assert.throws(() => parseBackfillArgs(["--records=x"]), /records must be a whole number/);
  assert.throws(() => parseBackfillArgs(["--fast"]), /unknown argument --fast/);
});

Deno.test("cpuSeconds: this process's CPU time grows with work; a missing process is null", async () => {
  const before = await cpuSeconds(Deno.pid);
  assert.ok(before !== null && before > 0, `${before}`);
  // Work, not time: a fixed amount of it costs CPU however busy the machine is.
  let x = 0;
  for (let i = 0; i < 300_000_000; i++) x = (x + i) % 1_000_003;
  const after = (await cpuSeconds(Deno.pid))!;
  assert.ok(after > before, `${before} → ${after} (${x})`);
  assert.equal(await cpuSeconds(2 ** 22 + 1), null);
});

Deno.test("evenly: spread over the whole list, all of it when asked for more", () => {
  assert.deepEqual(evenly([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 4), [0, 2, 5, 7]);
  assert.deepEqual(evenly([1, 2], 5), [1, 2]);
  assert.deepEqual(evenly([], 3), []);
});

Deno.test("backfill bench --quick embeds every record through the daemon and prints its lines", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const records = Array.from(
      { length: 10 },
      (_, i) => JSON.stringify(makeRecord({ title: `Fix the parser crash number ${i}` })),
    );
    await Deno.writeTextFile(join(dir, "records.jsonl"), records.join("\n") + "\n");
    await Deno.writeTextFile(join(dir, "queries.jsonl"), "");
    const out = join(dir, "backfill.json");
    const { code, stdout: text, stderr } = await runDenoScript(SCRIPT, {
      args: ["--quick", "--records=8", `--data=${dir}`, `--out=${out}`],
      cwd: REPO_ROOT,
    });
    assert.equal(code, 0, `exit ${code}\n${text}\n${stderr}`);
    assert.match(
      text,
      /^backfill: 8 dev-set records embedded by the daemon in \S+ s: \S+ records\/s/m,
    );
    assert.match(text, /^backfill: ingest during backfill +p50 \S+ ms +p99/m);
    assert.match(text, /^backfill: ingest once idle +p50 \S+ ms +p99/m);
    const report = JSON.parse(await Deno.readTextFile(out));
    assert.equal(report.records, 8);
    assert.ok(report.ingest_idle.count > 0);
    // The daemon's own CPU time (Linux): a figure other work on the machine moves less.
    assert.match(
      text,
      /^backfill: the daemon used \S+ CPU s \(all threads\): \S+ records per CPU s/m,
    );
    assert.ok(report.cpu_seconds > 0, `${report.cpu_seconds}`);
    assert.ok(report.records_per_cpu_s > 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
