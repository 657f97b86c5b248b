/**
 * The config files kiro-learn edits, one "target" per file, each knowing how to add our entries
 * to that file and how to take exactly those entries out again. Each agent owns its files
 * (`_agent_claude_code.ts`, `_agent_kiro_cli.ts`, `_agent_kiro_ide.ts`,
 * `_agent_codex.ts`); this module finds the
 * agent of a file. Foreign entries, keys and their order are left as they are; our entries are
 * replaced in place on a reinstall so the file does not churn.
 *
 * @module
 */
import type { JsonObject } from "./_json_file.ts";
import { isOurCommand } from "./shell.ts";
import { CLAUDE_CODE } from "./_agent_claude_code.ts";
import { KIRO_CLI } from "./_agent_kiro_cli.ts";
import { KIRO_IDE } from "./_agent_kiro_ide.ts";
import { CODEX } from "./_agent_codex.ts";
import { GEMINI_CLI } from "./_agent_gemini_cli.ts";
import { COPILOT_CLI } from "./_agent_copilot_cli.ts";
import type {
  AgentInstaller,
  HookSet,
  InstallPaths,
  Target,
  TargetKind,
  TargetScope,
} from "./_target.ts";

export { CLAUDE_HOOKS } from "./_agent_claude_code.ts";
export { KIRO_V3_HOOKS, llmAgentPaths } from "./_agent_kiro_cli.ts";
export { KIRO_IDE_HOOKS } from "./_agent_kiro_ide.ts";
export {
  CODEX_HOOKS,
  type CodexConfigBlock,
  codexConfigBlock,
  codexHomeFromEnv,
  codexHookHash,
  type CodexMcpEntry,
  type CodexTrust,
  codexTrust,
  projectTrustedIn,
  trustedIn,
} from "./_agent_codex.ts";
export {
  type AgentInstaller,
  copilotHome,
  type DoctorSource,
  type HookSet,
  type InstallPaths,
  installPaths,
  type KindPlace,
  type Target,
  TARGET_KINDS,
  type TargetKind,
  type TargetScope,
} from "./_target.ts";

/** Every agent the installer wires, in the order doctor reports them. */
export const AGENTS: readonly AgentInstaller[] = [
  KIRO_CLI,
  KIRO_IDE,
  CLAUDE_CODE,
  CODEX,
  GEMINI_CLI,
  COPILOT_CLI,
];

function agentOf(kind: TargetKind): AgentInstaller {
  const agent = AGENTS.find((a) => a.kinds[kind] !== undefined);
  if (!agent) throw new Error(`no agent owns ${kind} files`);
  return agent;
}

/** Whose files of `kind` are (the user's, or a project's), as its agent says. */
export function scopeOf(kind: TargetKind): TargetScope {
  return agentOf(kind).kinds[kind]!.scope;
}

/** Every file of `kind` install may write at `paths`, as its agent says. */
export function filesOf(kind: TargetKind, paths: InstallPaths): string[] {
  return agentOf(kind).kinds[kind]!.files(paths);
}

/** Every kind of file the agents own, agent by agent. */
export function everyKind(): TargetKind[] {
  return AGENTS.flatMap((agent) => Object.keys(agent.kinds) as TargetKind[]);
}

/** Every file of every kind at `paths`, agent by agent (what an uninstall looks at). */
export function everyFile(paths: InstallPaths): [TargetKind, string][] {
  return everyKind().flatMap((kind) =>
    filesOf(kind, paths).map((path): [TargetKind, string] => [kind, path])
  );
}

/** Builds the target of `kind` at `path`. `seed` is the agent kiro-cli made, if any (2.x). */
export function makeTarget(
  kind: TargetKind,
  path: string,
  options: { hooks: HookSet; seed?: JsonObject | null },
): Target {
  return agentOf(kind).target(kind, path, options);
}

/**
 * The commands of our hooks in a parsed file of `kind`, by event/trigger; used by doctor. Empty
 * for kinds without hooks.
 */
export function ourHookCommands(
  kind: TargetKind,
  doc: JsonObject,
  known: readonly string[] = [],
): Map<string, string[]> {
  const found = new Map<string, string[]>();
  agentOf(kind).hookCommands(kind, doc, (event, command) => {
    if (typeof command !== "string" || !isOurCommand(command, known)) return;
    found.set(event, [...(found.get(event) ?? []), command]);
  });
  return found;
}
