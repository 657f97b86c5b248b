import assert from "node:assert/strict";
import { MCP_SERVER_NAME } from "@kiro-learn/agents";
import { type AgentSandbox, waitFor } from "../testing/mod.ts";
import {
  agentBenchOptions,
  agentSetups,
  chosenSetups,
  figuresPath,
  interleave,
  pairedSummary,
  removeJsonHooks,
  removeJsonMcpEntry,
  startHogs,
  summaryLines,
} from "./agent_bench.ts";

Deno.test("agent bench: options from the command line, bad values refused with the flag named", () => {
  assert.deepEqual(agentBenchOptions([]), {
    runs: 20,
    warmup: 1,
    hogs: 0,
    quick: false,
    setups: null,
  });
  assert.deepEqual(agentBenchOptions(["--quick", "--hogs=2", "--setups=with_kiro_learn"]), {
    runs: 5,
    warmup: 1,
    hogs: 2,
    quick: true,
    setups: ["with_kiro_learn"],
  });
  assert.equal(agentBenchOptions(["--runs=7"]).runs, 7);
  assert.throws(() => agentBenchOptions(["--runs=0"]), /--runs must be an integer of at least 1/);
  assert.throws(() => agentBenchOptions(["--hogs=two"]), /--hogs must be an integer/);
  const options = agentBenchOptions(["--hogs=2"]);
  assert.match(figuresPath([], "codex", options), /\/\.bench\/codex-hogs2\.json$/);
  assert.equal(figuresPath(["--out=/x/y.json"], "codex", options), "/x/y.json");
});

Deno.test("agent bench: --setups keeps the setup without kiro-learn first and refuses an unknown key", () => {
  const specs = ["without_kiro_learn", "with_kiro_learn", "hooks_only", "mcp_only"].map((key) => ({
    key,
  }));
  assert.deepEqual(chosenSetups(specs, null).map((s) => s.key), specs.map((s) => s.key));
  assert.deepEqual(chosenSetups(specs, ["mcp_only", "with_kiro_learn"]).map((s) => s.key), [
    "without_kiro_learn",
    "with_kiro_learn",
    "mcp_only",
  ]);
  assert.throws(
    () => chosenSetups(specs, ["defualt"]),
    /--setups names no setup of this benchmark \(defualt\): choose among with_kiro_learn, hooks_only, mcp_only/,
  );
  assert.throws(() => chosenSetups(specs, []), /none given/);
});

Deno.test("agent bench: rounds rotate which setup goes first; the paired summary pairs each round", async () => {
  const box = { strays: () => [] };
  const setups = ["a", "b", "c"].map((key) => ({
    key,
    label: key,
    box,
    cwd: "/",
    hooks: false,
    mcp: false,
    times: [] as number[],
  }));
  const order: string[] = [];
  let clock = 0;
  // deno-lint-ignore no-explicit-any
  await interleave(setups as any, { runs: 2, warmup: 1 }, (setup) => {
    order.push(setup.key);
    return Promise.resolve(100 * (setup.key.charCodeAt(0) - 96) + clock++);
  });
  assert.deepEqual(order, ["a", "b", "c", "b", "c", "a", "c", "a", "b"]);
  assert.deepEqual(setups.map((s) => s.times.length), [2, 2, 2], "warm-up rounds are not kept");
  const summary = pairedSummary([
    { key: "without", times: [1000, 1200, 1100] },
    { key: "with", times: [1050, 1290, 1130] },
  ]);
  assert.equal(summary.figures.without.median_ms, 1100);
  assert.equal(summary.overhead.with.median_ms, 30);
  assert.equal(summary.overhead.with.paired_median_ms, 50, "median of 50, 90, 30");
  assert.deepEqual(summary.times_ms.with, [1050, 1290, 1130]);
  const lines = summaryLines("x", [{ key: "without", label: "without" }, {
    key: "with",
    label: "with",
  }], summary);
  assert.equal(lines.length, 3);
  assert.match(lines[2], /overhead per session, with: median \+30 ms, .* paired median \+50 ms/);
  assert.throws(
    () => pairedSummary([{ key: "a", times: [1, 2] }, { key: "b", times: [1] }]),
    /setup b has 1 runs, the baseline 2/,
  );
});

Deno.test("agent bench: hogs are busy child processes, all gone once disposed", async () => {
  // By their pids, not by a marker in the environment: the environment is the whole test
  // process's, and modules running beside this one would start children carrying it.
  const running = (pid: number) => {
    try {
      return Deno.readTextFileSync(`/proc/${pid}/cmdline`).includes("for (;;) {}");
    } catch {
      return false;
    }
  };
  let pids: number[];
  {
    await using hogs = startHogs(2);
    assert.equal(hogs.count, 2);
    pids = hogs.pids;
    // Until a child's exec completes, its cmdline is still this test process's: on a loaded
    // machine that takes a while, so wait for it rather than read once.
    await waitFor(() => Promise.resolve(pids.every(running) || undefined), {
      what: "both hogs running their busy loop",
    });
  }
  assert.deepEqual(pids.map(running), [false, false]);
});

Deno.test("agent bench: the setups, each taking out with the agent's removers what it leaves out", async () => {
  const taken: string[] = [];
  const removers = {
    mcpEntry: (box: AgentSandbox) => Promise.resolve(void taken.push(`mcp ${box.home}`)),
    hooks: (box: AgentSandbox) => Promise.resolve(void taken.push(`hooks ${box.home}`)),
  };
  const row = (
    s: ReturnType<typeof agentSetups>[number],
  ) => [s.key, s.label, s.install?.join(" ") ?? null, s.hooks, s.mcp];
  const both = agentSetups(removers, { mcp: "HTTP MCP", stdio: true });
  assert.deepEqual(both.map(row), [
    ["without_kiro_learn", "without kiro-learn", null, false, false],
    ["with_kiro_learn", "kiro-learn (HTTP MCP)", "", true, true],
    ["with_kiro_learn_stdio_mcp", "kiro-learn (stdio MCP)", "--mcp stdio", true, true],
    ["hooks_only", "hooks only (no MCP)", "", true, false],
    ["mcp_only", "HTTP MCP only (no hooks)", "", false, true],
  ]);
  for (const spec of both) await spec.adjust?.({ home: spec.key } as AgentSandbox);
  assert.deepEqual(taken, ["mcp hooks_only", "hooks mcp_only"]);
  assert.deepEqual(agentSetups(removers, { mcp: "local MCP", without: "mcp" }).map((s) => s.key), [
    "without_kiro_learn",
    "with_kiro_learn",
    "hooks_only",
  ]);
  assert.deepEqual(
    agentSetups(removers, { mcp: "HTTP MCP", stdio: true, without: "hooks" }).map(row),
    [
      ["without_kiro_learn", "without kiro-learn", null, false, false],
      ["with_kiro_learn", "HTTP MCP only", "", false, true],
      ["with_kiro_learn_stdio_mcp", "stdio MCP only", "--mcp stdio", false, true],
    ],
  );
});

Deno.test("agent bench: a JSON config loses kiro-learn's MCP entry or its hooks, and nothing else", async () => {
  const path = await Deno.makeTempFile({ prefix: "kiro-learn-bench-config-", suffix: ".json" });
  try {
    await Deno.writeTextFile(
      path,
      JSON.stringify({
        theme: "dark",
        hooks: { Stop: [] },
        mcpServers: { [MCP_SERVER_NAME]: { command: "x" }, mine: { command: "y" } },
      }),
    );
    await removeJsonMcpEntry(path);
    await removeJsonHooks(path);
    assert.deepEqual(JSON.parse(await Deno.readTextFile(path)), {
      theme: "dark",
      mcpServers: { mine: { command: "y" } },
    });
    await assert.rejects(
      () => removeJsonMcpEntry(path),
      new RegExp(`install wrote no ${MCP_SERVER_NAME} entry into ${path}`),
    );
  } finally {
    await Deno.remove(path);
  }
});
