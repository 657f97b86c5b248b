/**
 * Claude Code: its hooks in `settings.json` (user or project scope) and the MCP server in
 * `~/.claude.json` or `.mcp.json` — what install writes, what uninstall takes out, and where
 * doctor looks.
 *
 * @module
 */
import { join } from "node:path";
import { MCP_SERVER_NAME } from "@kiro-learn/agents";
import {
  CLAUDE_QUIET_START_SOURCES,
  CLAUDE_START_SOURCES,
  CLAUDE_STORE_HOOKS,
} from "@kiro-learn/core/hooks";
import { isPlainObject, type JsonObject } from "./_json_file.ts";
import { isOurCommand } from "./shell.ts";
import {
  type AgentInstaller,
  arrayAt,
  entries,
  insertAt,
  objectAt,
  removeMcpServer,
  setMcpServer,
  shared,
} from "./_target.ts";

/** Claude Code events we hook, with matcher and timeout (seconds). */
export const CLAUDE_HOOKS: readonly HookGroupSpec[] = [
  // Not at a session's startup: there the hook would only store a "session started" note (the
  // first prompt carries the start block), a lifecycle note that is never memory, while Claude
  // Code waits for the hook before its first request (about 20–35 ms of every session, measured
  // with its debug log). A collector that is down is still started at a session's start, by the
  // MCP headers helper, and else by the first prompt's hook.
  {
    event: "SessionStart",
    matcher: CLAUDE_START_SOURCES.filter((s) => !CLAUDE_QUIET_START_SOURCES.includes(s)).join("|"),
    timeout: 10,
  },
  { event: "UserPromptSubmit", timeout: 10 },
  // Not PostToolUse nor PostToolUseFailure: Claude Code runs hooks one after another, and a tool
  // hook cost each tool call (docs/benchmarks.md, the Claude Code benchmark, five calls: +97 ms with them,
  // +60 without). The turn's end reads the turn's tool uses, failures included, from the
  // session's transcript instead (the launcher hands Stop to the shim with `TURN_TOOLS_ARG`).
  { event: "Stop", timeout: 10 },
  // Not SessionEnd either: it would only store a "session ended" note, a lifecycle note that is
  // never memory (extraction skips it, injection drops it), for one more firing per session.
];

/** One hook an agent with Claude Code's `hooks` layout gets: its event, matcher and timeout (s). */
export interface HookGroupSpec {
  /** The event. */
  event: string;
  /** The matcher, if the group has one. */
  matcher?: string;
  /** Seconds the agent waits for the hook. */
  timeout: number;
}

/**
 * Puts our matcher group of each of `specs` into `doc.hooks` (Claude Code's layout, which Codex's
 * `hooks.json` shares), each where ours stood before, foreign groups and handlers kept. An event
 * only our older groups held, and that `specs` no longer hook, goes.
 */
export function installHookGroups(
  doc: JsonObject,
  path: string,
  options: {
    specs: readonly HookGroupSpec[];
    command: (spec: HookGroupSpec) => string;
    ours: (command: unknown) => boolean;
  },
): JsonObject {
  const { specs, ours } = options;
  const hooks = objectAt(doc, "hooks", path, "hooks");
  const slots = new Map<string, number>();
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    const { kept, slot } = stripClaudeGroups(groups, ours);
    // An event an older version hooked and this one does not (SessionEnd) goes with our groups
    // when they were all it held: no empty list is left behind. The others are refilled below, in
    // place, and uninstall's plan keeps a list the user had left empty.
    const dropped = kept.length === 0 && slot >= 0 &&
      !specs.some((spec) => spec.event === event);
    if (dropped) delete hooks[event];
    else hooks[event] = kept;
    slots.set(event, slot);
  }
  for (const spec of specs) {
    const groups = arrayAt(hooks, spec.event, path, `hooks.${spec.event}`);
    const group = {
      ...(spec.matcher === undefined ? {} : { matcher: spec.matcher }),
      hooks: [{ type: "command", command: options.command(spec), timeout: spec.timeout }],
    };
    insertAt(groups, slots.get(spec.event) ?? -1, group);
  }
  return doc;
}

/**
 * Whether the hook of `spec` only stores: its command then says so, and its launcher need not
 * read the payload before Claude Code may go on.
 */
function storesOnly(spec: { event: string }): boolean {
  return CLAUDE_STORE_HOOKS.includes(spec.event);
}

/** Takes our handlers out of `doc.hooks` (Claude Code's layout); groups left empty go too. */
export function stripHookGroups(doc: JsonObject, ours: (command: unknown) => boolean): JsonObject {
  if (!isPlainObject(doc.hooks)) return doc;
  for (const [event, groups] of Object.entries(doc.hooks)) {
    if (Array.isArray(groups)) doc.hooks[event] = stripClaudeGroups(groups, ours).kept;
  }
  return doc;
}

/**
 * Removes our handlers from matcher groups; a group left empty by that goes too. `slot` is where
 * the first such group stood, so a reinstall puts ours back in the same place. Gemini CLI's
 * `settings.json` hooks have the same shape.
 */
export function stripClaudeGroups(
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

/** Hands each handler's command in `doc.hooks` (Claude Code's layout) to `add`, by event. */
export function groupHookCommands(
  doc: JsonObject,
  add: (event: string, command: unknown) => void,
): void {
  for (const [event, groups] of entries(doc.hooks)) {
    for (const group of Array.isArray(groups) ? groups : []) {
      if (!isPlainObject(group) || !Array.isArray(group.hooks)) continue;
      for (const hook of group.hooks) if (isPlainObject(hook)) add(event, hook.command);
    }
  }
}

/** Claude Code's part of the installer. */
export const CLAUDE_CODE: AgentInstaller = {
  name: "Claude Code",
  // Hooks at user and at project scope add up; each place is checked on its own.
  alternatives: false,
  kinds: {
    "claude-settings-user": { scope: "user", files: (at) => [at.claudeUserSettings] },
    "claude-settings-project": { scope: "project", files: (at) => [at.claudeProjectSettings] },
    "claude-mcp-user": { scope: "user", files: (at) => [at.claudeUserMcp] },
    "claude-mcp-project": { scope: "project", files: (at) => [at.claudeProjectMcp] },
  },
  target(kind, path, { hooks }) {
    const ours = (command: unknown) => isOurCommand(command, hooks.known);
    if (kind === "claude-settings-user" || kind === "claude-settings-project") {
      return shared(kind, path, {
        roots: ["hooks"],
        label: `Claude Code hooks (${CLAUDE_HOOKS.map((h) => h.event).join(", ")})`,
        install: (doc) =>
          installHookGroups(doc ?? {}, path, {
            specs: CLAUDE_HOOKS,
            command: (spec) => storesOnly(spec) ? hooks.claudeCodeStore : hooks.claudeCode,
            ours,
          }),
        strip: (doc) => stripHookGroups(doc, ours),
      });
    }
    // Over HTTP only at user scope: Claude Code runs a project file's (.mcp.json) headers
    // helper only in a folder the user trusted interactively, and says so on stderr otherwise.
    const http = kind === "claude-mcp-user" ? hooks.mcpHttp ?? null : null;
    return shared(kind, path, {
      roots: ["mcpServers"],
      label: `Claude Code MCP server ${MCP_SERVER_NAME}${
        http ? " (HTTP, served by the collector)" : ""
      }`,
      install: (doc) =>
        setMcpServer(
          doc ?? {},
          path,
          http
            ? { type: "http", url: http.url, headersHelper: http.headersHelper }
            : { type: "stdio", command: hooks.mcp.command, args: hooks.mcp.args },
        ),
      strip: removeMcpServer,
    });
  },
  hookCommands(kind, doc, add) {
    if (kind !== "claude-settings-user" && kind !== "claude-settings-project") return;
    groupHookCommands(doc, add);
  },
  doctorSources(paths, projectDir) {
    const events = CLAUDE_HOOKS.map((h) => h.event);
    return [
      ["claude-settings-user", paths.claudeUserSettings, events],
      ["claude-settings-project", paths.claudeProjectSettings, events],
      ["claude-settings-project", join(projectDir, ".claude", "settings.local.json"), events],
    ];
  },
};
