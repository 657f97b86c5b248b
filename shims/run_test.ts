import assert from "node:assert/strict";
import { codexPlan as core } from "@kiro-learn/core/hooks";
import { lazyTurnReader, planPayload, type TurnToolsReader } from "./run.ts";
import { loadShimConfig } from "./transport.ts";
import { fixture, fixtureText, makeDataDir, makeProject } from "./testing.ts";

Deno.test("lazyTurnReader: loads and runs the reader only where its gate passes", async () => {
  const project = await makeProject();
  const data = await makeDataDir({});
  try {
    // Codex's real rollout, where the Stop fixture names it.
    const dir = `${project}/.home/.codex/sessions/2026/11/29`;
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(`${dir}/rollout.jsonl`, fixtureText("codex/rollout.jsonl", project));
    const config = loadShimConfig({ env: data.env });
    assert.ok(config !== null);
    const plan = planPayload(core, fixture("codex/stop.json", project), { env: data.env });
    assert.ok(plan !== null);
    const loads: string[] = [];
    const reader = lazyTurnReader(
      (_plan, args) => args.includes("--asked"),
      async (): Promise<TurnToolsReader> => {
        loads.push("loaded");
        return (await import("./_codex_rollout.ts")).codexTurnToolUses;
      },
    );

    assert.equal(await reader(plan, { config, args: [] }), null);
    assert.deepEqual(loads, [], "a gate that fails loads nothing");

    const read = await reader(plan, { config, args: ["--asked"] });
    assert.deepEqual(loads, ["loaded"]);
    assert.ok(read !== null);
    assert.deepEqual(
      read.deliveries.map((d) => [d.event.kind, d.event.source.surface]),
      [["tool_use", "codex"]],
    );
  } finally {
    await Deno.remove(project, { recursive: true });
    await Deno.remove(data.dir, { recursive: true });
  }
});
