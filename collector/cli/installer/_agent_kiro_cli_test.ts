import assert from "node:assert/strict";
import { installPaths, TARGET_KINDS } from "./_target.ts";
import type { HookSet } from "./_target.ts";
import { AGENTS } from "./_targets.ts";
import { HOOK_MARKER } from "./shell.ts";
import { KIRO_CLI } from "./_agent_kiro_cli.ts";

const HOOKS: HookSet = {
  kiroCli: `/s/kiro-cli || true ${HOOK_MARKER}`,
  claudeCode: `/s/claude || true ${HOOK_MARKER}`,
  kiroIde: (event) => `/s/ide ${event} || true ${HOOK_MARKER}`,
  mcp: { command: "/s/mcp", args: ["--stdio"] },
  known: ["/s/"],
};

const HAS_HOOKS: readonly string[] = [
  "claude-settings-user",
  "claude-settings-project",
  "kiro-hooks",
  "kiro-chat-agent",
  "kiro-ide-hook",
];

Deno.test("KIRO_CLI owns its kinds alone, and every kind has one owner", () => {
  for (const kind of KIRO_CLI.kinds) {
    assert.deepEqual(AGENTS.filter((a) => a.kinds.includes(kind)), [KIRO_CLI], kind);
  }
  assert.deepEqual(
    [...new Set(AGENTS.flatMap((a) => a.kinds))].sort(),
    [...TARGET_KINDS].sort(),
  );
});

Deno.test("KIRO_CLI: what install writes, doctor reads back as ours; strip takes it out again", () => {
  const paths = installPaths("/h", "/p");
  for (
    const [kind, path] of [
      ["kiro-hooks", "/p/.kiro/hooks/kiro-learn.json"],
      ["kiro-chat-agent", "/h/.kiro/agents/kiro-learn.json"],
      ["kiro-mcp", "/p/.kiro/settings/mcp.json"],
      ["kiro-llm-agent", "/h/.kiro/agents/kiro-learn-compressor.json"],
    ] as const
  ) {
    const target = KIRO_CLI.target(kind, path, { hooks: HOOKS });
    assert.equal(target.kind, kind);
    const written = target.install(undefined);
    const events: string[] = [];
    KIRO_CLI.hookCommands(kind, written, (event) => events.push(event));
    if (target.owned === false) {
      const stripped = target.strip(written);
      assert.ok(target.residual(stripped), `${kind}: nothing of ours is left after strip`);
    }
    assert.ok(events.length > 0 || !HAS_HOOKS.includes(kind), `${kind}: hooks read back`);
  }
  for (const [, path] of KIRO_CLI.doctorSources(paths, "/p")) {
    assert.ok(path.startsWith("/h/") || path.startsWith("/p/"), path);
  }
});
