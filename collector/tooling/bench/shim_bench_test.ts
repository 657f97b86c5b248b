import assert from "node:assert/strict";
import { runDenoScript } from "@kiro-learn/core/testing";

Deno.test("the shim benchmark runs end to end with --quick", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const output = await runDenoScript(new URL("./shim_bench.ts", import.meta.url).pathname, {
      args: ["--quick", `--out=${dir}/shims.json`],
      cwd: Deno.cwd(),
    });
    const stdout = output.stdout;
    assert.equal(output.code, 0, output.stderr);
    assert.match(stdout, /shim: tool-use hook\s+median/);
    assert.match(stdout, /shim: prompt hook, retrieval at 1k records\s+median/);
    assert.match(stdout, /shim: Claude Code tool-use hook, fast path\s+median/);
    const figures = JSON.parse(await Deno.readTextFile(`${dir}/shims.json`));
    assert.equal(figures.quick, true);
    assert.equal(figures.tool_use_hook.runs, 8);
    // The fast path retrieves as the shim does: the same prompts get context.
    assert.ok(figures.prompt_hook.with_context > 0);
    assert.equal(
      figures.claude_code_prompt_hook_fast_path.with_context,
      figures.prompt_hook.with_context,
    );
    // Codex CLI and Gemini CLI: each hook through its launcher's fast path and as `deno run`.
    assert.match(stdout, /shim: Codex prompt hook, fast path\s+median/);
    assert.match(stdout, /shim: Gemini CLI turn-end hook, deno run\s+median/);
    assert.equal(
      figures.codex_prompt_hook_fast_path.with_context,
      figures.codex_prompt_hook_deno_run.with_context,
    );
    assert.ok(figures.codex_prompt_hook_fast_path.with_context > 0);
    assert.equal(figures.gemini_cli_turn_end_hook_fast_path.runs, 8);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
