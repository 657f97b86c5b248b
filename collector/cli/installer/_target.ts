/**
 * What every agent module of the installer shares: the kinds of file it manages, what a target
 * is, the paths, and the JSON edits common to several files (an MCP server entry, lists of our
 * entries among foreign ones).
 *
 * @module
 */
import { isAbsolute, join, resolve } from "node:path";
import { CHAT_AGENT_NAME, MCP_SERVER_NAME } from "@kiro-learn/agents";
import { InstallError } from "./errors.ts";
import { cloneJson, isHollow, isPlainObject, type JsonObject } from "./_json_file.ts";

/** Every kind of file the installer manages. */
export type TargetKind =
  | "claude-settings-user"
  | "claude-settings-project"
  | "claude-mcp-user"
  | "claude-mcp-project"
  | "kiro-chat-agent"
  | "kiro-hooks"
  | "kiro-mcp"
  | "kiro-llm-agent"
  | "kiro-ide-hook"
  | "codex-hooks"
  | "codex-hooks-project"
  | "gemini-settings-user"
  | "copilot-hooks"
  | "copilot-mcp-user";

/** All target kinds. */
export const TARGET_KINDS: readonly TargetKind[] = [
  "claude-settings-user",
  "claude-settings-project",
  "claude-mcp-user",
  "claude-mcp-project",
  "kiro-chat-agent",
  "kiro-hooks",
  "kiro-mcp",
  "kiro-llm-agent",
  "kiro-ide-hook",
  "codex-hooks",
  "codex-hooks-project",
  "gemini-settings-user",
  "copilot-hooks",
  "copilot-mcp-user",
];

/**
 * Whose a kind of file is: the user's (one per user, whichever project install ran from), or a
 * project's (one per project folder).
 */
export type TargetScope = "user" | "project";

/** Where an agent keeps one kind of file, and whose it is. */
export interface KindPlace {
  /** Whose the files are. */
  scope: TargetScope;
  /** Every file of this kind install may write, at `paths`. */
  files(paths: InstallPaths): string[];
}

/** The hook commands and MCP server a target writes, already turned into strings. */
export interface HookSet {
  /** Command of the Kiro CLI hooks (embedded and v3 file). */
  kiroCli: string;
  /** Command of the Claude Code hooks. */
  claudeCode: string;
  /** Command of the Claude Code hooks that only store (`CLAUDE_STORE_HOOKS`). */
  claudeCodeStore: string;
  /** Command of the Codex CLI hooks. */
  codex: string;
  /** Command of the Gemini CLI hooks. */
  geminiCli: string;
  /** Command of a Copilot CLI hook, by its event (its payloads do not name it). */
  copilotCli: (event: string) => string;
  /** Command of a legacy Kiro IDE hook, by its `when.type`. */
  kiroIde: (event: string) => string;
  /** The MCP server to register. */
  mcp: { command: string; args: string[] };
  /** Claude Code's user-scope entry over HTTP, or null for the stdio server. */
  mcpHttp?: { url: string; headersHelper: string } | null;
  /** Gemini CLI's and Copilot CLI's stdio entry: the sh relay, or null for the stdio server. */
  mcpRelay?: { command: string; args: string[] } | null;
  /** Quoted shim argvs we install now, to recognise our hooks by. */
  known: readonly string[];
}

/** One managed file. */
export interface Target {
  /** What kind of file this is. */
  kind: TargetKind;
  /** Absolute path. */
  path: string;
  /** What it holds for us, for the plan. */
  label: string;
  /**
   * `true`: the whole file is ours (rewritten on install, deleted on uninstall);
   * `"when-created"`: ours to delete only if we created it; `false`: shared with others.
   */
  owned: boolean | "when-created";
  /** The file as install wants it, from its current content (undefined: no file). */
  install(current: JsonObject | undefined): JsonObject;
  /** The file without our entries (shared files). */
  strip(current: JsonObject): JsonObject;
  /** Whether a file at this path is ours (owned files found without an install record). */
  recognise(current: JsonObject): boolean;
  /** Top-level keys our entries live under (shared files); nothing outside them is touched. */
  roots: readonly string[];
  /** Whether nothing but our scaffolding is left (decides deleting a file we created). */
  residual(stripped: JsonObject): boolean;
}

/** Paths of every file the installer may touch. */
export interface InstallPaths {
  /** `~/.kiro/agents`. */
  kiroAgentsDir: string;
  /** `~/.kiro/agents/kiro-learn.json` (Kiro CLI 2.x). */
  chatAgent: string;
  /** `<project>/.kiro/hooks/kiro-learn.json` (Kiro CLI 3.x, Kiro IDE 1.x). */
  kiroHooks: string;
  /** `<project>/.kiro/settings/mcp.json`. */
  kiroMcp: string;
  /** `<project>/.kiro/hooks`, where the legacy IDE hook files go. */
  kiroHooksDir: string;
  /** `~/.claude/settings.json`. */
  claudeUserSettings: string;
  /** `<project>/.claude/settings.json`. */
  claudeProjectSettings: string;
  /** `~/.claude.json` (user-scope MCP servers). */
  claudeUserMcp: string;
  /** `<project>/.mcp.json`. */
  claudeProjectMcp: string;
  /** Codex CLI's home: `$CODEX_HOME`, by default `~/.codex`. */
  codexHome: string;
  /** `<codex home>/hooks.json` (Codex CLI's user hooks). */
  codexHooks: string;
  /** `<codex home>/config.toml` (Codex CLI's user config: our hooks' trust, the MCP server). */
  codexConfig: string;
  /** `<project>/.codex/hooks.json` (Codex CLI's project hooks, read in a trusted project). */
  codexProjectHooks: string;
  /** `~/.gemini/settings.json` (Gemini CLI's hooks and MCP servers). */
  geminiUserSettings: string;
  /** `~/.copilot/hooks/kiro-learn.json` (Copilot CLI's user hooks, all ours). */
  copilotHooks: string;
  /** `~/.copilot/mcp-config.json` (Copilot CLI's MCP servers). */
  copilotMcp: string;
}

/**
 * Copilot CLI's config folder: `COPILOT_HOME` when it is set, nonempty and absolute (Copilot CLI
 * 1.0.102 then keeps its hooks, `mcp-config.json` and session state there instead of in
 * `~/.copilot`, and refuses a relative one), else `~/.copilot`.
 */
export function copilotHome(home: string, env: { COPILOT_HOME?: string } = {}): string {
  const dir = env.COPILOT_HOME?.trim();
  return dir && isAbsolute(dir) ? resolve(dir) : join(home, ".copilot");
}

/**
 * The paths for a home and a project root; `codexHome` is Codex CLI's home when `CODEX_HOME`
 * names one (default `<home>/.codex`), `copilotHome` Copilot CLI's config folder (default
 * `<home>/.copilot`).
 */
export function installPaths(
  home: string,
  projectDir: string,
  options: { codexHome?: string; copilotHome?: string } = {},
): InstallPaths {
  const codexHome = options.codexHome ?? join(home, ".codex");
  const copilot = options.copilotHome ?? join(home, ".copilot");
  return {
    kiroAgentsDir: join(home, ".kiro", "agents"),
    chatAgent: join(home, ".kiro", "agents", `${CHAT_AGENT_NAME}.json`),
    kiroHooks: join(projectDir, ".kiro", "hooks", "kiro-learn.json"),
    kiroMcp: join(projectDir, ".kiro", "settings", "mcp.json"),
    kiroHooksDir: join(projectDir, ".kiro", "hooks"),
    claudeUserSettings: join(home, ".claude", "settings.json"),
    claudeProjectSettings: join(projectDir, ".claude", "settings.json"),
    claudeUserMcp: join(home, ".claude.json"),
    claudeProjectMcp: join(projectDir, ".mcp.json"),
    codexHome,
    codexHooks: join(codexHome, "hooks.json"),
    codexConfig: join(codexHome, "config.toml"),
    codexProjectHooks: join(projectDir, ".codex", "hooks.json"),
    geminiUserSettings: join(home, ".gemini", "settings.json"),
    copilotHooks: join(copilot, "hooks", "kiro-learn.json"),
    copilotMcp: join(copilot, "mcp-config.json"),
  };
}

/** One place doctor looks for an agent's hooks: the file's kind, its path, the events it hooks. */
export type DoctorSource = [kind: TargetKind, path: string, events: string[]];

/** What one agent contributes to install, uninstall and doctor. */
export interface AgentInstaller {
  /** The agent, as doctor names it. */
  name: string;
  /** The kinds of file it owns, each with its place: the one source of where and whose. */
  kinds: Readonly<Partial<Record<TargetKind, KindPlace>>>;
  /** The target of one of its kinds at `path` (install and uninstall both plan with it). */
  target(
    kind: TargetKind,
    path: string,
    options: { hooks: HookSet; seed?: JsonObject | null },
  ): Target;
  /** Hands each of our hook commands in a parsed file of one of its kinds to `add` (doctor). */
  hookCommands(
    kind: TargetKind,
    doc: JsonObject,
    add: (event: string, command: unknown) => void,
  ): void;
  /** Where doctor looks for this agent's hooks. */
  doctorSources(paths: InstallPaths, projectDir: string): DoctorSource[];
  /** True when any one of those places is enough (alternative formats of one agent). */
  alternatives: boolean;
}

/** A target in a file shared with others: only our entries under `roots` are ever touched. */
export function shared(
  kind: TargetKind,
  path: string,
  parts: Pick<Target, "label" | "roots"> & {
    install(doc: JsonObject | undefined): JsonObject;
    strip(doc: JsonObject): JsonObject;
  },
): Target {
  return {
    kind,
    path,
    label: parts.label,
    roots: parts.roots,
    owned: false,
    install: (current) => parts.install(current === undefined ? undefined : cloneJson(current)),
    strip: (current) => parts.strip(cloneJson(current)),
    recognise: () => false,
    residual: isHollow,
  };
}

// --- MCP server entries ----------------------------------------------------------------------

/** Adds (or replaces) our MCP server entry under `mcpServers`, other servers kept. */
export function setMcpServer(doc: JsonObject, path: string, entry: JsonObject): JsonObject {
  const servers = objectAt(doc, "mcpServers", path, "mcpServers");
  // Assigning an existing key keeps its position among the user's servers.
  servers[MCP_SERVER_NAME] = entry;
  return doc;
}

/** Takes our MCP server entry out of `mcpServers`. */
export function removeMcpServer(doc: JsonObject): JsonObject {
  if (isPlainObject(doc.mcpServers)) delete doc.mcpServers[MCP_SERVER_NAME];
  return doc;
}

// --- helpers ---------------------------------------------------------------------------------

/** A list without our entries; the index of the first one removed, for putting ours back in place. */
export function stripList(
  list: unknown[],
  isOurs: (item: unknown) => boolean,
): { kept: unknown[]; slot: number } {
  const kept: unknown[] = [];
  let slot = -1;
  for (const item of list) {
    if (isOurs(item)) {
      if (slot < 0) slot = kept.length;
    } else {
      kept.push(item);
    }
  }
  return { kept, slot };
}

/** Inserts at `slot`, or appends when there is none. */
export function insertAt(list: unknown[], slot: number, item: unknown): void {
  if (slot < 0 || slot > list.length) list.push(item);
  else list.splice(slot, 0, item);
}

/** The object under `key`, created when missing; a clear InstallError when it is something else. */
export function objectAt(doc: JsonObject, key: string, path: string, where: string): JsonObject {
  const value = doc[key];
  if (value === undefined) return (doc[key] = {}) as JsonObject;
  if (!isPlainObject(value)) {
    throw new InstallError(
      `${path}: "${where}" should be an object but is ${describe(value)}; kiro-learn will not ` +
        `overwrite it. Fix the file, then run again.`,
    );
  }
  return value;
}

/** The array under `key`, created when missing; a clear InstallError when it is something else. */
export function arrayAt(doc: JsonObject, key: string, path: string, where: string): unknown[] {
  const value = doc[key];
  if (value === undefined) return (doc[key] = []) as unknown[];
  if (!Array.isArray(value)) {
    throw new InstallError(
      `${path}: "${where}" should be a list but is ${describe(value)}; kiro-learn will not ` +
        `overwrite it. Fix the file, then run again.`,
    );
  }
  return value;
}

/** The entries of an object, or none for anything else. */
export function entries(value: unknown): [string, unknown][] {
  return isPlainObject(value) ? Object.entries(value) : [];
}

/** What a JSON value is, for error messages. */
export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : `a ${typeof value} (${JSON.stringify(value)})`;
}
