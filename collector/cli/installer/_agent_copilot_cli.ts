/**
 * GitHub Copilot CLI: its hooks in a file of our own, `~/.copilot/hooks/kiro-learn.json`, and the
 * MCP server in the user's `~/.copilot/mcp-config.json` — what install writes, what uninstall
 * takes out, and where doctor looks.
 *
 * Copilot CLI 1.0.102 loads every `~/.copilot/hooks/*.json` (`{"version": 1, "hooks": {<event>:
 * [{type: "command", bash, timeoutSec}]}}`) as user-level hooks, in every folder, trusted or not;
 * a repository's `.github/hooks/*.json` would run kiro-learn's launcher on every teammate's
 * machine, so user scope only. Hooks under camelCase event names get camelCase payloads that do
 * not name their event, so each hook command names it (the shim's first argument). Owning the
 * whole hook file means no foreign hook is ever touched; the MCP file is shared, and only our
 * entry under `mcpServers` changes.
 *
 * @module
 */
import { MCP_SERVER_NAME } from "@kiro-learn/agents";
import { COPILOT_HOOK_EVENTS } from "@kiro-learn/core/hooks";
import { isPlainObject, type JsonObject } from "./_json_file.ts";
import { isOurCommand } from "./shell.ts";
import { type AgentInstaller, entries, removeMcpServer, setMcpServer, shared } from "./_target.ts";

/**
 * How long Copilot CLI waits for one of our hooks, in seconds (its unit; its default is 30). The
 * shim gives up well before: a few seconds at most, then it spools.
 */
export const COPILOT_HOOK_TIMEOUT_SEC = 10;

function hookFile(command: (event: string) => string): JsonObject {
  const hooks: JsonObject = {};
  for (const event of COPILOT_HOOK_EVENTS) {
    hooks[event] = [{
      type: "command",
      bash: command(event),
      timeoutSec: COPILOT_HOOK_TIMEOUT_SEC,
    }];
  }
  return { version: 1, hooks };
}

/** Copilot CLI's part of the installer. */
export const COPILOT_CLI: AgentInstaller = {
  name: "Copilot CLI",
  alternatives: false,
  kinds: {
    "copilot-hooks": { scope: "user", files: (at) => [at.copilotHooks] },
    "copilot-mcp-user": { scope: "user", files: (at) => [at.copilotMcp] },
  },
  target(kind, path, { hooks }) {
    const ours = (command: unknown) => isOurCommand(command, hooks.known);
    if (kind === "copilot-hooks") {
      return {
        kind,
        path,
        label: `Copilot CLI hooks (${COPILOT_HOOK_EVENTS.join(", ")})`,
        owned: true,
        roots: [],
        install: () => hookFile(hooks.copilotCli),
        strip: (doc) => doc,
        recognise: (doc) => {
          let found = false;
          COPILOT_CLI.hookCommands(kind, doc, (_event, command) => {
            found ||= ours(command);
          });
          return found;
        },
        residual: () => true,
      };
    }
    return shared(kind, path, {
      roots: ["mcpServers"],
      label: `Copilot CLI MCP server ${MCP_SERVER_NAME}`,
      // A local server is started without a shell, like `copilot mcp add <name> -- <command>`.
      install: (doc) =>
        setMcpServer(doc ?? {}, path, {
          type: "local",
          ...(hooks.mcpRelay ?? hooks.mcp),
          tools: ["*"],
        }),
      strip: (doc) => removeMcpServer(doc),
    });
  },
  hookCommands(kind, doc, add) {
    if (kind !== "copilot-hooks") return;
    for (const [event, handlers] of entries(doc.hooks)) {
      for (const handler of Array.isArray(handlers) ? handlers : []) {
        if (isPlainObject(handler)) add(event, handler.bash);
      }
    }
  },
  doctorSources(paths) {
    return [["copilot-hooks", paths.copilotHooks, [...COPILOT_HOOK_EVENTS]]];
  },
};
