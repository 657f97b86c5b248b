/**
 * Gemini CLI: its hooks and the MCP server, both in the user's `~/.gemini/settings.json` — what
 * install writes, what uninstall takes out, and where doctor looks.
 *
 * User scope only: Gemini CLI 0.61 runs a project's `.gemini/settings.json` hooks only in a
 * folder the user trusted, and a committed file would run kiro-learn's launcher on every
 * teammate's machine. Hooks from `settings.json` run in trusted folders (and with `--skip-trust`
 * or `GEMINI_CLI_TRUST_WORKSPACE=true` in headless runs, which refuse an untrusted folder
 * otherwise).
 *
 * @module
 */
import { join } from "node:path";
import { MCP_SERVER_NAME } from "@kiro-learn/agents";
import { GEMINI_HOOK_EVENTS } from "@kiro-learn/core/hooks";
import { isPlainObject, type JsonObject } from "./_json_file.ts";
import { isOurCommand } from "./shell.ts";
import { stripClaudeGroups } from "./_agent_claude_code.ts";
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

/**
 * How long Gemini CLI waits for one of our hooks, in milliseconds (its unit; its default is a
 * minute). The shim gives up well before: a few seconds at most, then it spools.
 */
export const GEMINI_HOOK_TIMEOUT_MS = 10_000;

/** The name our hook entries carry (Gemini CLI's `/hooks` lists it; `hooksConfig.disabled` takes it). */
export const GEMINI_HOOK_NAME = "kiro-learn";

/** `~/.gemini/settings.json`. */
export function geminiUserSettings(home: string): string {
  return join(home, ".gemini", "settings.json");
}

function installGeminiHooks(
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
  for (const event of GEMINI_HOOK_EVENTS) {
    const groups = arrayAt(hooks, event, path, `hooks.${event}`);
    insertAt(groups, slots.get(event) ?? -1, {
      hooks: [{
        type: "command",
        name: GEMINI_HOOK_NAME,
        command,
        timeout: GEMINI_HOOK_TIMEOUT_MS,
      }],
    });
  }
  return doc;
}

function stripGeminiHooks(doc: JsonObject, ours: (command: unknown) => boolean): JsonObject {
  if (!isPlainObject(doc.hooks)) return doc;
  for (const [event, groups] of Object.entries(doc.hooks)) {
    if (Array.isArray(groups)) doc.hooks[event] = stripClaudeGroups(groups, ours).kept;
  }
  return removeMcpServer(doc);
}

/** Gemini CLI's part of the installer. */
export const GEMINI_CLI: AgentInstaller = {
  name: "Gemini CLI",
  alternatives: false,
  kinds: { "gemini-settings-user": { scope: "user", files: (at) => [at.geminiUserSettings] } },
  target(kind, path, { hooks }) {
    const ours = (command: unknown) => isOurCommand(command, hooks.known);
    return shared(kind, path, {
      roots: ["hooks", "mcpServers"],
      label: `Gemini CLI hooks (${
        GEMINI_HOOK_EVENTS.join(", ")
      }) and MCP server ${MCP_SERVER_NAME}`,
      install: (doc) =>
        setMcpServer(
          installGeminiHooks(doc ?? {}, path, hooks.geminiCli, ours),
          path,
          // Gemini CLI starts it without a shell: `sh -c` expands the launcher's `$HOME`.
          { ...(hooks.mcpRelay ?? hooks.mcp) },
        ),
      strip: (doc) => stripGeminiHooks(doc, ours),
    });
  },
  hookCommands(_kind, doc, add) {
    for (const [event, groups] of entries(doc.hooks)) {
      for (const group of Array.isArray(groups) ? groups : []) {
        if (!isPlainObject(group) || !Array.isArray(group.hooks)) continue;
        for (const hook of group.hooks) if (isPlainObject(hook)) add(event, hook.command);
      }
    }
  },
  doctorSources(paths) {
    return [["gemini-settings-user", paths.geminiUserSettings, [...GEMINI_HOOK_EVENTS]]];
  },
};
