/**
 * Test fixtures for the installer: a throw-away home and project, pre-existing foreign configs,
 * and a byte-exact snapshot of a folder tree. Not imported by production code.
 *
 * @module
 */
import { dirname, join, relative } from "node:path";
import assert from "node:assert/strict";
import type { InstallCommands, InstallOptions, UninstallOptions } from "./plan.ts";
import type { RunOptions } from "./install.ts";
import { HOOK_MARKER } from "./shell.ts";
import { AGENTS } from "./_targets.ts";
import {
  type AgentInstaller,
  type HookSet,
  installPaths,
  TARGET_KINDS,
  type TargetKind,
} from "./_target.ts";

/** A temporary home, project and data dir. */
export interface World {
  /** Root of everything (removed by `cleanup`). */
  root: string;
  /** The fake home folder. */
  home: string;
  /** The fake project (below home, with a .git folder). */
  project: string;
  /** `<home>/.kiro-learn`. */
  dataDir: string;
  /** Removes the whole tree. */
  cleanup(): Promise<void>;
}

/** Shim and MCP argvs with a space and a quote in the path, so quoting is exercised. */
export const COMMANDS: InstallCommands = {
  shim: (surface, extraArgs = []) => [
    "/opt/kiro learn/bin/deno",
    "run",
    "-A",
    `/opt/kiro learn/it's/shims/${surface}.ts`,
    ...extraArgs,
  ],
  mcp: () => ["/opt/kiro learn/bin/deno", "run", "-A", "/opt/kiro learn/mcp/main.ts"],
};

/** Makes an empty world. */
export async function makeWorld(): Promise<World> {
  const root = await Deno.makeTempDir({ prefix: "kiro-learn-installer-" });
  const home = join(root, "home");
  const project = join(home, "code", "app");
  await Deno.mkdir(join(project, ".git"), { recursive: true });
  return {
    root,
    home,
    project,
    dataDir: join(home, ".kiro-learn"),
    cleanup: () => Deno.remove(root, { recursive: true }),
  };
}

/** Install and uninstall print nothing (tests that read what they print collect it). */
export const QUIET: RunOptions = { print: () => {} };

/** Runs `fn` in a fresh world, removed afterwards whatever happens. */
export async function withWorld(fn: (world: World) => Promise<void>): Promise<void> {
  const world = await makeWorld();
  try {
    await fn(world);
  } finally {
    await world.cleanup();
  }
}

/** Uninstall options for `world` (its home, project and data dir; quiet), overridable. */
export function uninstallOptionsFor(
  world: World,
  extra: Partial<UninstallOptions> & RunOptions = {},
): UninstallOptions & RunOptions {
  return {
    home: world.home,
    projectDir: world.project,
    dataDir: world.dataDir,
    ...QUIET,
    ...extra,
  };
}

/** Install options for `world` (v3, user scope, no kiro-cli), overridable. */
export function optionsFor(world: World, extra: Partial<InstallOptions> = {}): InstallOptions {
  return {
    home: world.home,
    projectDir: world.project,
    dataDir: world.dataDir,
    kiroFormat: "auto",
    kiroCliVersion: null,
    scope: "user",
    kiroIdeLegacy: false,
    commands: COMMANDS,
    seedAgent: () => Promise.resolve({ agent: null }),
    ...extra,
  };
}

/** The foreign configs, as text (2-space JSON with a final newline, like the agents write). */
export const FOREIGN: Record<string, unknown> = {
  "home/.claude/settings.json": {
    model: "opus",
    permissions: { allow: ["Bash(npm test:*)"], deny: [] },
    hooks: {
      PostToolUse: [
        { matcher: "Edit|Write", hooks: [{ type: "command", command: "npx prettier --write" }] },
      ],
      Stop: [{ hooks: [{ type: "command", command: "say done", timeout: 3 }] }],
      Notification: [],
    },
    env: { FOO: "bar" },
  },
  "home/.claude.json": {
    numStartups: 12,
    projects: { "/somewhere": { allowedTools: [] } },
    mcpServers: { github: { type: "stdio", command: "gh-mcp", args: [] } },
    userID: "abc",
  },
  "home/.kiro/agents/reviewer.json": {
    name: "reviewer",
    tools: ["fs_read"],
    hooks: { agentSpawn: [{ command: "git status" }] },
  },
  "home/code/app/.kiro/settings/mcp.json": {
    mcpServers: { "aws-docs": { command: "uvx", args: ["awslabs.aws-documentation-mcp-server"] } },
  },
  "home/code/app/.kiro/hooks/lint.json": {
    version: "v1",
    hooks: [{
      name: "lint",
      trigger: "PostFileSave",
      action: { type: "command", command: "npm run lint" },
    }],
  },
  "home/code/app/.mcp.json": {
    mcpServers: { db: { command: "pg-mcp", args: ["--ro"], env: { PGHOST: "localhost" } } },
  },
  "home/code/app/.claude/settings.json": { permissions: { allow: ["Read"] } },
};

/** A pre-existing `kiro-learn` Kiro agent with foreign hooks and fields. */
export const FOREIGN_CHAT_AGENT = {
  name: "kiro-learn",
  description: "my own tweaks",
  prompt: "Be terse.",
  tools: ["*"],
  hooks: {
    agentSpawn: [{ command: "git status --short" }],
    preToolUse: [{ matcher: "execute_bash", command: "audit-bash" }],
  },
  mcpServers: { fetch: { command: "uvx", args: ["mcp-server-fetch"] } },
  model: "claude-sonnet-4",
};

/** Writes `files` (relative to the world root) as 2-space JSON with a final newline. */
export async function writeFiles(world: World, files: Record<string, unknown>): Promise<void> {
  for (const [rel, value] of Object.entries(files)) {
    const path = join(world.root, rel);
    await Deno.mkdir(dirname(path), { recursive: true });
    await Deno.writeTextFile(
      path,
      typeof value === "string" ? value : JSON.stringify(value, null, 2) + "\n",
    );
  }
}

/** Every entry below `dir`: files by content, folders as "<dir>", links as "-> target". */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (path: string) => {
    for (const entry of Deno.readDirSync(path)) {
      const full = join(path, entry.name);
      const rel = relative(dir, full);
      if (entry.isSymlink) out[rel] = `-> ${Deno.readLinkSync(full)}`;
      else if (entry.isDirectory) {
        out[rel] = "<dir>";
        walk(full);
      } else out[rel] = Deno.readTextFileSync(full);
    }
  };
  walk(dir);
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a < b ? -1 : 1));
}

/** Reads a JSON file below the world root. */
export function readJson(world: World, rel: string): Record<string, unknown> {
  return JSON.parse(Deno.readTextFileSync(join(world.root, rel)));
}

/** True when a path below the world root exists. */
export function existsAt(world: World, rel: string): boolean {
  try {
    Deno.lstatSync(join(world.root, rel));
    return true;
  } catch {
    return false;
  }
}

/** Collects printed lines. */
export function collect(): { lines: string[]; print: (text: string) => void } {
  const lines: string[] = [];
  return { lines, print: (text) => lines.push(...text.split("\n")) };
}

/** Hook commands as tests write them: ours are recognised by the marker. */
export const TEST_HOOKS: HookSet = {
  kiroCli: `/s/kiro-cli || true ${HOOK_MARKER}`,
  claudeCode: `/s/claude || true ${HOOK_MARKER}`,
  claudeCodeStore: `/s/claude --store || true ${HOOK_MARKER}`,
  codex: `/s/codex || true ${HOOK_MARKER}`,
  geminiCli: `/s/gemini || true ${HOOK_MARKER}`,
  copilotCli: (event) => `/s/copilot ${event} || true ${HOOK_MARKER}`,
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
  "codex-hooks",
  "codex-hooks-project",
  "gemini-settings-user",
  "copilot-hooks",
];

/**
 * The checks every agent module passes: it alone owns its kinds (and all kinds have an owner);
 * what install writes, doctor reads back as ours; strip takes our entries out of shared files;
 * doctor looks only under the home and the project.
 */
export function checkAgent(
  agent: AgentInstaller,
  options: { files: readonly (readonly [TargetKind, string])[] },
): void {
  const kindsOf = (a: AgentInstaller) => Object.keys(a.kinds) as TargetKind[];
  for (const kind of kindsOf(agent)) {
    assert.deepEqual(AGENTS.filter((a) => kindsOf(a).includes(kind)), [agent], kind);
  }
  assert.deepEqual([...new Set(AGENTS.flatMap(kindsOf))].sort(), [...TARGET_KINDS].sort());
  // Each kind's place: a user's file under the home (Codex's home is in it by default), a
  // project's under the project.
  for (const [kind, place] of Object.entries(agent.kinds)) {
    const files = place!.files(installPaths("/h", "/p"));
    assert.ok(files.length > 0, kind);
    for (const file of files) {
      assert.ok(file.startsWith(place!.scope === "user" ? "/h/" : "/p/"), `${kind}: ${file}`);
    }
  }
  for (const [kind, path] of options.files) {
    const target = agent.target(kind, path, { hooks: TEST_HOOKS });
    assert.equal(target.kind, kind);
    const written = target.install(undefined);
    const events: string[] = [];
    agent.hookCommands(kind, written, (event) => events.push(event));
    if (target.owned === false) assert.ok(target.residual(target.strip(written)), kind);
    assert.ok(events.length > 0 || !HAS_HOOKS.includes(kind), `${kind}: hooks read back`);
  }
  for (const [, path] of agent.doctorSources(installPaths("/h", "/p"), "/p")) {
    assert.ok(path.startsWith("/h/") || path.startsWith("/p/"), path);
  }
}

/**
 * The document a real TOML parser (Python's tomllib, in a child process) reads from `text`;
 * throws when it is not valid TOML.
 */
export async function parseToml(text: string): Promise<Record<string, unknown>> {
  const child = new Deno.Command("python3", {
    args: ["-c", "import json,sys,tomllib; print(json.dumps(tomllib.loads(sys.stdin.read())))"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const out = await child.output();
  if (out.code !== 0) throw new Error(`not valid TOML: ${new TextDecoder().decode(out.stderr)}`);
  return JSON.parse(new TextDecoder().decode(out.stdout));
}
