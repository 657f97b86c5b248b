import assert from "node:assert/strict";
import { installPaths, TARGET_KINDS } from "./_target.ts";
import type { HookSet } from "./_target.ts";
import { AGENTS } from "./_targets.ts";
import { HOOK_MARKER } from "./shell.ts";
import { KIRO_IDE } from "./_agent_kiro_ide.ts";

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

Deno.test("KIRO_IDE owns its kinds alone, and every kind has one owner", () => {
  for (const kind of KIRO_IDE.kinds) {
    assert.deepEqual(AGENTS.filter((a) => a.kinds.includes(kind)), [KIRO_IDE], kind);
  }
  assert.deepEqual(
    [...new Set(AGENTS.flatMap((a) => a.kinds))].sort(),
    [...TARGET_KINDS].sort(),
  );
});

Deno.test("KIRO_IDE: what install writes, doctor reads back as ours; strip takes it out again", () => {
  const paths = installPaths("/h", "/p");
  for (
    const [kind, path] of [["kiro-ide-hook", "/p/.kiro/hooks/kiro-learn-prompt.kiro.hook"]] as const
  ) {
    const target = KIRO_IDE.target(kind, path, { hooks: HOOKS });
    assert.equal(target.kind, kind);
    const written = target.install(undefined);
    const events: string[] = [];
    KIRO_IDE.hookCommands(kind, written, (event) => events.push(event));
    if (target.owned === false) {
      const stripped = target.strip(written);
      assert.ok(target.residual(stripped), `${kind}: nothing of ours is left after strip`);
    }
    assert.ok(events.length > 0 || !HAS_HOOKS.includes(kind), `${kind}: hooks read back`);
  }
  for (const [, path] of KIRO_IDE.doctorSources(paths, "/p")) {
    assert.ok(path.startsWith("/h/") || path.startsWith("/p/"), path);
  }
});
