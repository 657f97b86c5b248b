/**
 * OpenAI Codex CLI: its hooks in `~/.codex/hooks.json` (Claude Code's layout), and in
 * `~/.codex/config.toml`, inside one marked block of our own (`_toml_block.ts`), the trust of
 * those hooks and the MCP server. What install writes, what uninstall takes out, and where doctor
 * looks.
 *
 * Codex runs a user's command hook only once it is trusted: `[hooks.state."<key>"]` holds a
 * `trusted_hash` equal to the hook's current hash, else the hook is skipped silently. The key is
 * `<hooks.json path>:<event in snake case>:<group index>:<handler index>`; the hash is
 * `sha256:` and the hex SHA-256 of the hook's normalized identity as JSON with sorted keys
 * (`{event_name, hooks: [{async, command, timeout, type}], matcher?}`) — what Codex CLI 0.171.0
 * computes (codex-rs/hooks/src/engine/discovery.rs, `command_hook_hash`) and reports as
 * `currentHash`. Install writes the trust of exactly the hooks it wrote, so a hand edit of
 * our hook (a changed command) is not trusted until the next install.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { MCP_SERVER_NAME } from "@kiro-learn/agents";
import { isPlainObject, type JsonObject } from "./_json_file.ts";
import { isOurCommand } from "./shell.ts";
import {
  groupHookCommands,
  type HookGroupSpec,
  installHookGroups,
  stripHookGroups,
} from "./_agent_claude_code.ts";
import { type AgentInstaller, entries, shared } from "./_target.ts";
import { nested, tomlKey, tomlNames, tomlString } from "./_toml_block.ts";

/** Codex events we hook, with timeout (seconds). */
export const CODEX_HOOKS: readonly HookGroupSpec[] = [
  // Its plain stdout reaches the model (as a developer message), so the prompt's memory, and at a
  // session's first prompt the session-start block, go in with the prompt.
  { event: "UserPromptSubmit", timeout: 10 },
  // The turn's end: its answer, and the turn's tool uses read from the rollout file (Codex's
  // PostToolUse says nothing of a failed command's exit code, and one firing per tool call would
  // cost every call a hook process). Not SessionStart: the first prompt carries the start block.
  { event: "Stop", timeout: 10 },
];

/** Codex's hook trust of one handler: its key in `hooks.state` and the hash to trust. */
export interface CodexTrust {
  /** `<hooks.json path>:<event_snake>:<group>:<handler>`. */
  key: string;
  /** `sha256:<hex>`. */
  hash: string;
}

/** `UserPromptSubmit` as Codex names it in trust keys and hashes: `user_prompt_submit`. */
export function codexEventLabel(event: string): string {
  return event.replace(/(?<=[a-z0-9])([A-Z])/g, "_$1").toLowerCase();
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (isPlainObject(value)) {
    return Object.fromEntries(
      Object.keys(value).sort().map((key) => [key, canonical(value[key])]),
    );
  }
  return value;
}

/** The hash Codex trusts a command hook by (see the module's documentation). */
export function codexHookHash(
  event: string,
  handler: { command: string; timeout?: number; async?: boolean; statusMessage?: string },
  matcher?: string,
): string {
  const normalized: JsonObject = {
    type: "command",
    command: handler.command,
    timeout: Math.max(1, Math.trunc(handler.timeout ?? 600)),
    async: handler.async ?? false,
    ...(handler.statusMessage === undefined ? {} : { statusMessage: handler.statusMessage }),
  };
  const identity = {
    event_name: codexEventLabel(event),
    ...(matcher === undefined ? {} : { matcher }),
    hooks: [normalized],
  };
  const digest = createHash("sha256").update(JSON.stringify(canonical(identity))).digest("hex");
  return `sha256:${digest}`;
}

/** The trust of each of our handlers in a `hooks.json` document at `hooksPath`. */
export function codexTrust(
  doc: JsonObject,
  hooksPath: string,
  ours: (command: unknown) => boolean,
): CodexTrust[] {
  const trust: CodexTrust[] = [];
  for (const [event, groups] of entries(doc.hooks)) {
    if (!Array.isArray(groups)) continue;
    groups.forEach((group, g) => {
      if (!isPlainObject(group) || !Array.isArray(group.hooks)) return;
      const matcher = typeof group.matcher === "string" ? group.matcher : undefined;
      group.hooks.forEach((hook, h) => {
        if (!isPlainObject(hook) || !ours(hook.command)) return;
        trust.push({
          key: `${hooksPath}:${codexEventLabel(event)}:${g}:${h}`,
          hash: codexHookHash(event, {
            command: String(hook.command),
            timeout: typeof hook.timeout === "number" ? hook.timeout : undefined,
            async: hook.async === true,
            statusMessage: typeof hook.statusMessage === "string" ? hook.statusMessage : undefined,
          }, matcher),
        });
      });
    });
  }
  return trust;
}

/**
 * Codex's entry for our MCP server: the stdio server it starts per session, or the collector's
 * MCP route over HTTP with the headers helper (the command Claude Code's `headersHelper` runs).
 */
export type CodexMcpEntry =
  | { command: string; args: string[] }
  | { url: string; headersHelper: string };

/**
 * The lines of our `[mcp_servers.…]` table. Over HTTP, Codex 0.171 runs `http_headers_helper`
 * through `sh -c` once per session (codex-rs/rmcp-client, `run_helper`) and sends the JSON object
 * it prints as headers: the token goes from the 0700 data dir to the request, never into argv,
 * the environment or this file. Codex runs the helper in the session's folder, its own; the
 * launcher takes the nearest ancestor whose folder differs from the helper's as the agent's, so
 * the helper starts from `/`.
 */
export function codexMcpLines(mcp: CodexMcpEntry): string[] {
  if ("url" in mcp) {
    return [
      `url = ${tomlString(mcp.url)}`,
      `http_headers_helper = ${tomlString(`cd / && ${mcp.headersHelper}`)}`,
    ];
  }
  return [
    `command = ${tomlString(mcp.command)}`,
    `args = [${mcp.args.map(tomlString).join(", ")}]`,
  ];
}

/** What our block in `config.toml` should hold, and what the user should know. */
export interface CodexConfigBlock {
  /** TOML lines (empty: no block). */
  body: string;
  /** Things left out because the user's own config already defines them. */
  warnings: string[];
  /** Names the user's config defines in a way our tables cannot be added to (install refuses). */
  clashes: string[];
}

/**
 * Our block of `config.toml` (`text` is its current content, "" when there is none): the MCP
 * server and the trust of our hooks. A table the user's part of the file already has is left to
 * the user: Codex's own trust entry for our hook (written when the user trusted it in `/hooks`)
 * is kept as it is, and said in a warning when its hash is not the one our hook has now.
 */
export function codexConfigBlock(
  text: string,
  path: string,
  parts: { trust: readonly CodexTrust[]; mcp: CodexMcpEntry },
): CodexConfigBlock {
  const names = tomlNames(text, path);
  const warnings: string[] = [];
  const clashes: string[] = [];
  const sections: string[] = [];
  const add = (name: string[], lines: string[], onTable: () => void) => {
    if (names.tables.some((t) => t.length === name.length && nested(t, name))) {
      onTable();
      return;
    }
    // A key above or inside our table's name (`hooks = {…}`, `mcp_servers.x.command = …`) would
    // make the file invalid with our table added.
    const key = names.keys.find((k) =>
      nested(k, name) && !names.tables.some((t) => nested(t, k) && t.length > k.length)
    );
    if (key !== undefined) {
      clashes.push(`${tomlKey(key)} (kiro-learn adds [${tomlKey(name)}])`);
      return;
    }
    sections.push([`[${tomlKey(name)}]`, ...lines].join("\n") + "\n");
  };
  add(["mcp_servers", MCP_SERVER_NAME], codexMcpLines(parts.mcp), () =>
    warnings.push(
      `${path} already has [mcp_servers.${MCP_SERVER_NAME}]: kiro-learn leaves it as it is`,
    ));
  for (const trust of parts.trust) {
    add(["hooks", "state", trust.key], [`trusted_hash = ${tomlString(trust.hash)}`], () => {
      if (!trustedIn(text, trust)) {
        warnings.push(
          `${path} has its own trust entry for kiro-learn's hook ${trust.key}, for another ` +
            "version of the hook: Codex skips the hook until you trust it again (/hooks in Codex)",
        );
      }
    });
  }
  return { body: sections.join("\n"), warnings, clashes };
}

/**
 * Whether a `config.toml` text trusts one hook: its `[hooks.state."<key>"]` table (as install and
 * Codex's `/hooks` write it) sets `trusted_hash` to the hook's hash. Line-based.
 */
export function trustedIn(text: string, trust: CodexTrust): boolean {
  const header = `[${tomlKey(["hooks", "state", trust.key])}]`;
  const lines = text.split("\n").map((l) => l.replace(/\r$/, "").trim());
  const at = lines.indexOf(header);
  if (at < 0) return false;
  for (const line of lines.slice(at + 1)) {
    if (line.startsWith("[")) return false;
    if (line.replace(/\s+/g, "") === `trusted_hash=${tomlString(trust.hash)}`) return true;
  }
  return false;
}

/** Codex's part of the installer (its `hooks.json`; `config.toml` is planned beside it). */
export const CODEX: AgentInstaller = {
  name: "Codex CLI",
  alternatives: false,
  kinds: ["codex-hooks"],
  target(kind, path, { hooks }) {
    const ours = (command: unknown) => isOurCommand(command, hooks.known);
    return shared(kind, path, {
      roots: ["hooks"],
      label: `Codex CLI hooks (${CODEX_HOOKS.map((h) => h.event).join(", ")})`,
      install: (doc) =>
        installHookGroups(doc ?? {}, path, {
          specs: CODEX_HOOKS,
          command: () => hooks.codex,
          ours,
        }),
      strip: (doc) => stripHookGroups(doc, ours),
    });
  },
  hookCommands(kind, doc, add) {
    if (kind === "codex-hooks") groupHookCommands(doc, add);
  },
  doctorSources(paths) {
    return [["codex-hooks", paths.codexHooks, CODEX_HOOKS.map((h) => h.event)]];
  },
};
