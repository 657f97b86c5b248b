/**
 * The config files kiro-learn edits, one "target" per file, each knowing how to add our entries
 * to that file and how to take exactly those entries out again. Foreign entries, keys and their
 * order are left as they are; our entries are replaced in place on a reinstall so the file does
 * not churn.
 *
 * @module
 */
import { join } from "node:path";
import {
  CHAT_AGENT_DESCRIPTION,
  CHAT_AGENT_HOOK_TRIGGERS,
  CHAT_AGENT_IDENTITY,
  CHAT_AGENT_NAME,
  CHAT_AGENT_TEMPLATE,
  CHAT_AGENT_TRUSTED_TOOLS,
  type KiroAgentConfig,
  LLM_AGENTS,
  MCP_SERVER_NAME,
} from "@kiro-learn/agents";
import { InstallError } from "./errors.ts";
import { cloneJson, isHollow, isPlainObject, type JsonObject } from "./_json_file.ts";
import { isOurCommand } from "./shell.ts";

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
  | "kiro-ide-hook";

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
];

/** The hook commands and MCP server a target writes, already turned into strings. */
export interface HookSet {
  /** Command of the Kiro CLI hooks (embedded and v3 file). */
  kiroCli: string;
  /** Command of the Claude Code hooks. */
  claudeCode: string;
  /** Command of a legacy Kiro IDE hook, by its `when.type`. */
  kiroIde: (event: string) => string;
  /** The MCP server to register. */
  mcp: { command: string; args: string[] };
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
}

/** The paths for a home and a project root. */
export function installPaths(home: string, projectDir: string): InstallPaths {
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
  };
}

/** Claude Code events we hook, with matcher and timeout (seconds). */
export const CLAUDE_HOOKS: readonly { event: string; matcher?: string; timeout: number }[] = [
  { event: "SessionStart", timeout: 10 },
  { event: "UserPromptSubmit", timeout: 10 },
  { event: "PostToolUse", matcher: "*", timeout: 10 },
  // Failed tools fire this event instead of PostToolUse: without it errors are never captured.
  { event: "PostToolUseFailure", matcher: "*", timeout: 10 },
  { event: "Stop", timeout: 10 },
  // Claude Code gives SessionEnd hooks very little time by default; the shim spools if it must.
  { event: "SessionEnd", timeout: 5 },
];

/** Kiro v1 hook-file entries (Kiro CLI 3.x, Kiro IDE 1.x); timeouts in seconds, never a cache. */
export const KIRO_V3_HOOKS: readonly { name: string; trigger: string; matcher?: string }[] = [
  { name: "kiro-learn-session-start", trigger: "SessionStart" },
  { name: "kiro-learn-prompt", trigger: "UserPromptSubmit" },
  // No matcher: Kiro v3 reads it as a regex, where `*` is invalid; omitted, every tool matches.
  { name: "kiro-learn-tool", trigger: "PostToolUse" },
  { name: "kiro-learn-stop", trigger: "Stop" },
];

const KIRO_V3_TIMEOUT_SECONDS = 10;

/** The legacy Kiro IDE 0.x hook files (`--kiro-ide-legacy`). */
export const KIRO_IDE_HOOKS: readonly {
  file: string;
  event: string;
  description: string;
  toolTypes?: string[];
}[] = [
  {
    file: "kiro-learn-prompt.kiro.hook",
    event: "promptSubmit",
    description: "kiro-learn: capture each prompt and add relevant memories to it",
  },
  {
    file: "kiro-learn-tool.kiro.hook",
    event: "postToolUse",
    description: "kiro-learn: capture each tool use",
    toolTypes: ["*"],
  },
  {
    file: "kiro-learn-stop.kiro.hook",
    event: "agentStop",
    description: "kiro-learn: capture the end of each turn",
  },
];

/** Builds the target of `kind` at `path`. `seed` is the agent kiro-cli made, if any (2.x). */
export function makeTarget(
  kind: TargetKind,
  path: string,
  options: { hooks: HookSet; seed?: JsonObject | null },
): Target {
  const { hooks } = options;
  const ours = (command: unknown) => isOurCommand(command, hooks.known);
  switch (kind) {
    case "claude-settings-user":
    case "claude-settings-project":
      return shared(kind, path, {
        roots: ["hooks"],
        label: `Claude Code hooks (${CLAUDE_HOOKS.map((h) => h.event).join(", ")})`,
        install: (doc) => installClaudeHooks(doc ?? {}, path, hooks.claudeCode, ours),
        strip: (doc) => stripClaudeHooks(doc, ours),
      });
    case "claude-mcp-user":
    case "claude-mcp-project":
      return shared(kind, path, {
        roots: ["mcpServers"],
        label: `Claude Code MCP server ${MCP_SERVER_NAME}`,
        install: (doc) =>
          setMcpServer(doc ?? {}, path, {
            type: "stdio",
            command: hooks.mcp.command,
            args: hooks.mcp.args,
          }),
        strip: removeMcpServer,
      });
    case "kiro-mcp":
      return shared(kind, path, {
        roots: ["mcpServers"],
        label: `Kiro MCP server ${MCP_SERVER_NAME}`,
        install: (doc) => setMcpServer(doc ?? {}, path, { ...hooks.mcp }),
        strip: removeMcpServer,
      });
    case "kiro-hooks":
      return {
        ...shared(kind, path, {
          roots: ["hooks"],
          label: `Kiro CLI 3.x / Kiro IDE 1.x hooks (${
            KIRO_V3_HOOKS.map((h) => h.trigger).join(", ")
          })`,
          install: (doc) => installKiroV3Hooks(doc ?? {}, path, hooks.kiroCli, ours),
          strip: (doc) => stripKiroV3Hooks(doc, ours),
        }),
        residual: (doc) =>
          Object.keys(doc).every((key) => key === "version" || key === "hooks") &&
          isHollow(doc.hooks ?? []),
      };
    case "kiro-chat-agent":
      return {
        ...shared(kind, path, {
          roots: ["hooks", "mcpServers"],
          label: `Kiro CLI 2.x agent ${CHAT_AGENT_NAME} (embedded hooks, MCP server)`,
          install: (doc) =>
            installChatAgent(doc ?? newChatAgent(options.seed ?? null), path, hooks, ours),
          strip: (doc) => stripChatAgent(doc, ours),
        }),
        owned: "when-created",
      };
    case "kiro-llm-agent": {
      const agent = llmAgentFor(path);
      return {
        kind,
        path,
        label: `Kiro agent ${agent.name} (no tools, model ${agent.model})`,
        owned: true,
        roots: [],
        install: () => cloneJson(agent) as unknown as JsonObject,
        strip: (doc) => doc,
        recognise: (doc) => doc.name === agent.name,
        residual: () => true,
      };
    }
    case "kiro-ide-hook": {
      const spec = KIRO_IDE_HOOKS.find((h) => path.endsWith(h.file));
      if (!spec) throw new Error(`not a kiro-learn IDE hook file: ${path}`);
      return {
        kind,
        path,
        label: `Kiro IDE 0.x hook (${spec.event})`,
        owned: true,
        roots: [],
        install: () => ideHookFile(spec, hooks.kiroIde(spec.event)),
        strip: (doc) => doc,
        recognise: (doc) => isPlainObject(doc.then) && ours(doc.then.command),
        residual: () => true,
      };
    }
  }
}

/** The path of each LLM agent file in `agentsDir`. */
export function llmAgentPaths(agentsDir: string): string[] {
  return LLM_AGENTS.map((agent) => join(agentsDir, `${agent.name}.json`));
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
  const add = (event: string, command: unknown) => {
    if (typeof command !== "string" || !isOurCommand(command, known)) return;
    found.set(event, [...(found.get(event) ?? []), command]);
  };
  if (kind === "claude-settings-user" || kind === "claude-settings-project") {
    for (const [event, groups] of entries(doc.hooks)) {
      for (const group of Array.isArray(groups) ? groups : []) {
        if (!isPlainObject(group) || !Array.isArray(group.hooks)) continue;
        for (const hook of group.hooks) if (isPlainObject(hook)) add(event, hook.command);
      }
    }
  } else if (kind === "kiro-chat-agent") {
    for (const [trigger, list] of entries(doc.hooks)) {
      for (const hook of Array.isArray(list) ? list : []) {
        if (isPlainObject(hook)) add(trigger, hook.command);
      }
    }
  } else if (kind === "kiro-hooks") {
    for (const hook of Array.isArray(doc.hooks) ? doc.hooks : []) {
      if (isPlainObject(hook) && isPlainObject(hook.action) && typeof hook.trigger === "string") {
        add(hook.trigger, hook.action.command);
      }
    }
  } else if (kind === "kiro-ide-hook") {
    if (isPlainObject(doc.when) && isPlainObject(doc.then) && typeof doc.when.type === "string") {
      add(doc.when.type, doc.then.command);
    }
  }
  return found;
}

function shared(
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

// --- Claude Code ---------------------------------------------------------------------------

function installClaudeHooks(
  doc: JsonObject,
  path: string,
  command: string,
  ours: (command: unknown) => boolean,
): JsonObject {
  const hooks = objectAt(doc, "hooks", path, "hooks");
  const slots = new Map<string, number>();
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    const { kept, slot } = stripClaudeGroups(groups, ours);
    hooks[event] = kept;
    slots.set(event, slot);
  }
  for (const spec of CLAUDE_HOOKS) {
    const groups = arrayAt(hooks, spec.event, path, `hooks.${spec.event}`);
    const group = {
      ...(spec.matcher === undefined ? {} : { matcher: spec.matcher }),
      hooks: [{ type: "command", command, timeout: spec.timeout }],
    };
    insertAt(groups, slots.get(spec.event) ?? -1, group);
  }
  return doc;
}

function stripClaudeHooks(doc: JsonObject, ours: (command: unknown) => boolean): JsonObject {
  if (!isPlainObject(doc.hooks)) return doc;
  for (const [event, groups] of Object.entries(doc.hooks)) {
    if (Array.isArray(groups)) doc.hooks[event] = stripClaudeGroups(groups, ours).kept;
  }
  return doc;
}

/**
 * Removes our handlers from matcher groups; a group left empty by that goes too. `slot` is where
 * the first such group stood, so a reinstall puts ours back in the same place.
 */
function stripClaudeGroups(
  groups: unknown[],
  ours: (command: unknown) => boolean,
): { kept: unknown[]; slot: number } {
  const kept: unknown[] = [];
  let slot = -1;
  for (const group of groups) {
    if (!isPlainObject(group) || !Array.isArray(group.hooks)) {
      kept.push(group);
      continue;
    }
    const rest = group.hooks.filter((hook) => !(isPlainObject(hook) && ours(hook.command)));
    if (rest.length === group.hooks.length) {
      kept.push(group);
    } else if (rest.length === 0) {
      if (slot < 0) slot = kept.length;
    } else {
      kept.push({ ...group, hooks: rest });
    }
  }
  return { kept, slot };
}

// --- MCP server entries ----------------------------------------------------------------------

function setMcpServer(doc: JsonObject, path: string, entry: JsonObject): JsonObject {
  const servers = objectAt(doc, "mcpServers", path, "mcpServers");
  // Assigning an existing key keeps its position among the user's servers.
  servers[MCP_SERVER_NAME] = entry;
  return doc;
}

function removeMcpServer(doc: JsonObject): JsonObject {
  if (isPlainObject(doc.mcpServers)) delete doc.mcpServers[MCP_SERVER_NAME];
  return doc;
}

// --- Kiro v1 hook file (CLI 3.x, IDE 1.x) ----------------------------------------------------

function installKiroV3Hooks(
  doc: JsonObject,
  path: string,
  command: string,
  ours: (command: unknown) => boolean,
): JsonObject {
  if (!("version" in doc)) doc.version = "v1";
  const list = arrayAt(doc, "hooks", path, "hooks");
  const { kept, slot } = stripList(list, (hook) => isOurV3Hook(hook, ours));
  const entries = KIRO_V3_HOOKS.map((spec) => ({
    name: spec.name,
    trigger: spec.trigger,
    ...(spec.matcher === undefined ? {} : { matcher: spec.matcher }),
    action: { type: "command", command },
    timeout: KIRO_V3_TIMEOUT_SECONDS,
  }));
  kept.splice(slot < 0 ? kept.length : slot, 0, ...entries);
  doc.hooks = kept;
  return doc;
}

function stripKiroV3Hooks(doc: JsonObject, ours: (command: unknown) => boolean): JsonObject {
  if (Array.isArray(doc.hooks)) doc.hooks = stripList(doc.hooks, (h) => isOurV3Hook(h, ours)).kept;
  return doc;
}

function isOurV3Hook(hook: unknown, ours: (command: unknown) => boolean): boolean {
  if (!isPlainObject(hook)) return false;
  if (isPlainObject(hook.action) && ours(hook.action.command)) return true;
  return KIRO_V3_HOOKS.some((spec) => spec.name === hook.name);
}

// --- Kiro CLI 2.x chat agent -----------------------------------------------------------------

function newChatAgent(seed: JsonObject | null): JsonObject {
  if (seed === null) return cloneJson(CHAT_AGENT_TEMPLATE) as unknown as JsonObject;
  const agent = cloneJson(seed);
  agent.name = CHAT_AGENT_NAME;
  agent.description = CHAT_AGENT_DESCRIPTION;
  if (typeof agent.prompt !== "string" || agent.prompt.trim() === "") {
    agent.prompt = CHAT_AGENT_IDENTITY;
  } else if (!agent.prompt.startsWith("file://") && !agent.prompt.includes(CHAT_AGENT_IDENTITY)) {
    // A file:// prompt is a reference; appending text to it would break the path.
    agent.prompt = `${agent.prompt}\n\n${CHAT_AGENT_IDENTITY}`;
  }
  if (Array.isArray(agent.allowedTools)) {
    for (const tool of CHAT_AGENT_TRUSTED_TOOLS) {
      if (!agent.allowedTools.includes(tool)) agent.allowedTools.push(tool);
    }
  }
  return agent;
}

function installChatAgent(
  doc: JsonObject,
  path: string,
  hooks: HookSet,
  ours: (command: unknown) => boolean,
): JsonObject {
  const table = objectAt(doc, "hooks", path, "hooks");
  const slots = new Map<string, number>();
  for (const [trigger, list] of Object.entries(table)) {
    if (!Array.isArray(list)) continue;
    const { kept, slot } = stripList(list, (hook) => isPlainObject(hook) && ours(hook.command));
    table[trigger] = kept;
    slots.set(trigger, slot);
  }
  for (const spec of CHAT_AGENT_HOOK_TRIGGERS) {
    const list = arrayAt(table, spec.trigger, path, `hooks.${spec.trigger}`);
    const hook = {
      ...(spec.matcher === undefined ? {} : { matcher: spec.matcher }),
      command: hooks.kiroCli,
    };
    insertAt(list, slots.get(spec.trigger) ?? -1, hook);
  }
  return setMcpServer(doc, path, { ...hooks.mcp });
}

function stripChatAgent(doc: JsonObject, ours: (command: unknown) => boolean): JsonObject {
  if (isPlainObject(doc.hooks)) {
    for (const [trigger, list] of Object.entries(doc.hooks)) {
      if (!Array.isArray(list)) continue;
      doc.hooks[trigger] = stripList(list, (hook) => isPlainObject(hook) && ours(hook.command))
        .kept;
    }
  }
  return removeMcpServer(doc);
}

// --- owned files -----------------------------------------------------------------------------

function llmAgentFor(path: string): Readonly<KiroAgentConfig> {
  const agent = LLM_AGENTS.find((a) => path.endsWith(`${a.name}.json`));
  if (!agent) throw new Error(`not a kiro-learn LLM agent file: ${path}`);
  return agent;
}

function ideHookFile(spec: (typeof KIRO_IDE_HOOKS)[number], command: string): JsonObject {
  return {
    enabled: true,
    name: spec.file.replace(/\.kiro\.hook$/, ""),
    description: spec.description,
    version: "1",
    when: { type: spec.event, ...(spec.toolTypes ? { toolTypes: [...spec.toolTypes] } : {}) },
    then: { type: "runCommand", command },
  };
}

// --- helpers ---------------------------------------------------------------------------------

function stripList(
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

function insertAt(list: unknown[], slot: number, item: unknown): void {
  if (slot < 0 || slot > list.length) list.push(item);
  else list.splice(slot, 0, item);
}

function objectAt(doc: JsonObject, key: string, path: string, where: string): JsonObject {
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

function arrayAt(doc: JsonObject, key: string, path: string, where: string): unknown[] {
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

function entries(value: unknown): [string, unknown][] {
  return isPlainObject(value) ? Object.entries(value) : [];
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : `a ${typeof value} (${JSON.stringify(value)})`;
}
