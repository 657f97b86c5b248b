/**
 * Kiro CLI: the v1 hook file of Kiro CLI 3.x (which Kiro IDE 1.x reads too), the `kiro-learn`
 * chat agent with embedded hooks for Kiro CLI 2.x, the project's MCP server entry, and the LLM
 * agents (compressor, reconciler, compactor) — what install writes, what uninstall takes out,
 * and where doctor looks.
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
import { cloneJson, isHollow, isPlainObject, type JsonObject } from "./_json_file.ts";
import { isOurCommand } from "./shell.ts";
import {
  type AgentInstaller,
  arrayAt,
  entries,
  type HookSet,
  insertAt,
  objectAt,
  removeMcpServer,
  setMcpServer,
  shared,
  stripList,
} from "./_target.ts";

/** Kiro v1 hook-file entries (Kiro CLI 3.x, Kiro IDE 1.x); timeouts in seconds, never a cache. */
export const KIRO_V3_HOOKS: readonly { name: string; trigger: string; matcher?: string }[] = [
  { name: "kiro-learn-session-start", trigger: "SessionStart" },
  { name: "kiro-learn-prompt", trigger: "UserPromptSubmit" },
  // No matcher: Kiro v3 reads it as a regex, where `*` is invalid; omitted, every tool matches.
  { name: "kiro-learn-tool", trigger: "PostToolUse" },
  { name: "kiro-learn-stop", trigger: "Stop" },
];

const KIRO_V3_TIMEOUT_SECONDS = 10;

/**
 * What a Kiro CLI 2.x user must do, since 2.x runs embedded hooks only in the agent that holds
 * them: `install` prints it after writing that agent and `doctor` repeats it.
 */
export const KIRO_CLI_V2_SELECT_AGENT =
  `Kiro CLI 2.x runs kiro-learn's hooks only in the \`${CHAT_AGENT_NAME}\` agent: start chats ` +
  `with \`kiro-cli chat --agent ${CHAT_AGENT_NAME}\`, switch inside a chat with ` +
  `\`/agent swap ${CHAT_AGENT_NAME}\`, or make it the default with ` +
  `\`kiro-cli settings chat.defaultAgent ${CHAT_AGENT_NAME}\``;

/** The path of each LLM agent file in `agentsDir`. */
export function llmAgentPaths(agentsDir: string): string[] {
  return LLM_AGENTS.map((agent) => join(agentsDir, `${agent.name}.json`));
}

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

function llmAgentFor(path: string): Readonly<KiroAgentConfig> {
  const agent = LLM_AGENTS.find((a) => path.endsWith(`${a.name}.json`));
  if (!agent) throw new Error(`not a kiro-learn LLM agent file: ${path}`);
  return agent;
}

/** Kiro CLI's part of the installer. */
export const KIRO_CLI: AgentInstaller = {
  name: "Kiro CLI",
  // The 3.x hook file or the 2.x agent: whichever the installed version reads.
  alternatives: true,
  kinds: {
    "kiro-llm-agent": { scope: "user", files: (at) => llmAgentPaths(at.kiroAgentsDir) },
    "kiro-chat-agent": { scope: "user", files: (at) => [at.chatAgent] },
    "kiro-hooks": { scope: "project", files: (at) => [at.kiroHooks] },
    "kiro-mcp": { scope: "project", files: (at) => [at.kiroMcp] },
  },
  target(kind, path, { hooks, seed }) {
    const ours = (command: unknown) => isOurCommand(command, hooks.known);
    switch (kind) {
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
              installChatAgent(doc ?? newChatAgent(seed ?? null), path, hooks, ours),
            strip: (doc) => stripChatAgent(doc, ours),
          }),
          owned: "when-created",
        };
      default: {
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
    }
  },
  hookCommands(kind, doc, add) {
    if (kind === "kiro-chat-agent") {
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
    }
  },
  doctorSources(paths) {
    return [
      ["kiro-hooks", paths.kiroHooks, KIRO_V3_HOOKS.map((h) => h.trigger)],
      ["kiro-chat-agent", paths.chatAgent, CHAT_AGENT_HOOK_TRIGGERS.map((h) => h.trigger)],
    ];
  },
};
