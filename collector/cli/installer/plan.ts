/**
 * Install and uninstall as a PLAN: every file is read and every change computed first, so a dry
 * run can print exactly what would happen and a problem anywhere (an unparsable config, a key of
 * the wrong type) stops everything before a single byte is written. `apply` then checks that no
 * file changed since the plan was made and performs it.
 *
 * @module
 */
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import {
  dataPaths,
  DEFAULTS,
  ensureDataDir,
  ownerUid,
  SETTINGS_FILE,
  userDefaultPort,
  writeSecureFile,
} from "@kiro-learn/core/settings";
import { STORE_ONLY_ARG } from "@kiro-learn/core/hooks";
import { type ShimSurface, starterScript } from "@kiro-learn/core/launch";
import { isInside } from "@kiro-learn/core/path";
import { sha256Hex } from "@kiro-learn/core/project";
import { InstallError } from "./errors.ts";
import {
  cloneJson,
  DEFAULT_STYLE,
  deleteFile,
  type JsonFileState,
  type JsonObject,
  readJsonFile,
  readTextOrNull,
  serializeJson,
  writeFileAtomic,
} from "./_json_file.ts";
import {
  chooseKiroFormat,
  type KiroFormat,
  type KiroFormatChoice,
  parseKiroCliVersion,
  probeKiroCliVersion,
  seedKiroAgent,
  type SeedResult,
} from "./kiro_cli.ts";
import {
  deletePath,
  hollowedPaths,
  hollowPaths,
  type Manifest,
  manifestPath,
  type ManifestRecord,
  readManifest,
  samePath,
  serializeManifest,
} from "./manifest.ts";
import { assertArgv, hookCommand, isOurCommand, quoteArgv } from "./shell.ts";
import { withoutTomlBlock, withTomlBlock } from "./_toml_block.ts";
import {
  codexConfigBlock,
  type CodexMcpEntry,
  type CodexTrust,
  codexTrust,
  everyFile,
  everyKind,
  filesOf,
  type HookSet,
  type InstallPaths,
  installPaths,
  KIRO_IDE_HOOKS,
  llmAgentPaths,
  makeTarget,
  scopeOf,
  type Target,
  type TargetKind,
} from "./_targets.ts";
import { KIRO_CLI_V2_SELECT_AGENT } from "./_agent_kiro_cli.ts";

/** The agent surfaces kiro-learn captures: those a shim serves. */
export type Surface = ShimSurface;

/** Where the shims and the MCP server are; the caller decides (compiled binaries or `deno run`). */
export interface InstallCommands {
  /** The argv that runs the shim of `surface`, with `extraArgs` appended. */
  shim(surface: Surface, extraArgs?: readonly string[]): string[];
  /** The argv that runs the MCP server. */
  mcp(): string[];
  /**
   * Claude Code's user-scope MCP entry over HTTP (the collector's route and the headers helper
   * command), or null to register the stdio server there too.
   */
  mcpHttp?(): { url: string; headersHelper: string } | null;
  /**
   * The stdio entry of the agents that start a stdio server per session and cannot hand the token
   * to an HTTP entry (Gemini CLI, Copilot CLI): the sh relay to the collector's MCP route, or null
   * to register the Deno stdio server there too (`--mcp stdio`).
   */
  mcpRelay?(): string[] | null;
  /** Scripts the commands run, written into the data dir (executable) by install. */
  launchers?(): { path: string; content: string }[];
}

// The scripts install writes into `<data dir>/bin/` (core/launch's hook_launcher.ts and starter.ts).
const OUR_SCRIPTS = /^(?:hook-[a-z-]+|mcp-server|mcp-headers|mcp-relay|start-collector)$/;

// How each of those scripts starts its second line (after `#!/bin/sh`).
const SCRIPT_MARK = "# Written by `kiro-learn install`";

// The home and project folder the kinds' files are laid out in to read their places relative to
// it (a project's file is at its place under any folder; so is a user's config folder).
const LAYOUT_BASE = "/kiro-learn-base";

/**
 * The folders install may make for the files of `kind` (`missingDirs` of their paths): each
 * file's folder and those above it, up to the home or project folder it sits in (none for a file
 * right in it, as `~/.claude.json`). `tails` hold them relative to that folder, as they end in any
 * home or project; `at` holds them at `paths`, where `CODEX_HOME` or `COPILOT_HOME` may have
 * put the agent's folder elsewhere.
 */
function kindDirs(kind: TargetKind, paths: InstallPaths): { tails: string[]; at: string[] } {
  const layout = filesOf(kind, installPaths(LAYOUT_BASE, LAYOUT_BASE));
  const actual = filesOf(kind, paths);
  const tails: string[] = [];
  const at: string[] = [];
  layout.forEach((file, i) => {
    let dir = dirname(file);
    let there = dirname(actual[i]);
    while (dir !== LAYOUT_BASE && isInside(dir, LAYOUT_BASE)) {
      tails.push(dir.slice(LAYOUT_BASE.length));
      at.push(there);
      [dir, there] = [dirname(dir), dirname(there)];
    }
  });
  return { tails, at };
}

/**
 * Whether install may make folder `dir`, as the agents' kinds of file say ({@linkcode kindDirs}):
 * a folder of theirs at its place in any home or project, or exactly where `paths` puts it
 * (Copilot CLI's folder and its hooks folder under `COPILOT_HOME`). An install record naming any
 * other folder is not acted on.
 */
export function knownDir(dir: string, paths: InstallPaths): boolean {
  if (!isAbsolute(dir) || dir !== resolve(dir)) return false;
  return everyKind().some((kind) => {
    const { tails, at } = kindDirs(kind, paths);
    return at.includes(dir) || tails.some((tail) => dir.endsWith(tail));
  });
}

/** Options of {@linkcode planInstall}. */
export interface InstallOptions {
  /** The user's home folder. */
  home: string;
  /** Copilot CLI's config folder (`COPILOT_HOME`, see `copilotHome`); default `~/.copilot`. */
  copilotHome?: string;
  /** The project root (already resolved, e.g. by `resolveProject`). */
  projectDir: string;
  /** The data dir; defaults to `<home>/.kiro-learn`. */
  dataDir?: string;
  /** Kiro CLI hook format; `auto` (default) asks `kiro-cli --version`. */
  kiroFormat?: KiroFormat | "auto";
  /** `kiro-cli --version` output; null: not installed; undefined (default): run it. */
  kiroCliVersion?: string | null;
  /**
   * Claude Code's and Codex CLI's scope: `user` (default: `~/.claude`, `$CODEX_HOME`) or `project`
   * (`<project>/.claude`, `<project>/.codex`).
   */
  scope?: "user" | "project";
  /** Also write the three Kiro IDE 0.x `.kiro.hook` files. */
  kiroIdeLegacy?: boolean;
  /** The shim and MCP server commands. */
  commands: InstallCommands;
  /** Seeds the Kiro CLI 2.x agent; defaults to `kiro-cli agent create --from kiro_default`. */
  seedAgent?: () => Promise<SeedResult>;
  /** The `deno` binary the collector's starter runs (default `Deno.execPath()`). */
  denoPath?: string;
  /** The agents to wire (default: all); the others' files are left as they are. */
  agents?: readonly InstallAgent[];
  /** Where the collector the hooks post to listens (the effective settings, env included). */
  collector?: { host: string; port: number };
  /** Codex CLI's home when `CODEX_HOME` names one (default `<home>/.codex`). */
  codexHome?: string;
}

// The host and port a settings.json file holds, defaults (this user's port) filling what it
// leaves out.
function savedCollector(text: string, dataDir: string): { host: string; port: number } {
  const port = userDefaultPort(ownerUid(dataDir));
  try {
    const saved = JSON.parse(text)?.collector ?? {};
    return {
      host: typeof saved.host === "string" ? saved.host : DEFAULTS.collector.host,
      port: typeof saved.port === "number" ? saved.port : port,
    };
  } catch {
    return { host: DEFAULTS.collector.host, port };
  }
}

/** Options of {@linkcode planUninstall}. */
export interface UninstallOptions {
  /** The user's home folder. */
  home: string;
  /** Copilot CLI's config folder (`COPILOT_HOME`, see `copilotHome`); default `~/.copilot`. */
  copilotHome?: string;
  /** The project root to clean (entries recorded for other projects are cleaned too). */
  projectDir: string;
  /** The data dir; defaults to `<home>/.kiro-learn`. */
  dataDir?: string;
  /** Keep the data dir (database, settings, logs); only the install record goes. */
  keepData?: boolean;
  /** Codex CLI's home when `CODEX_HOME` names one (default `<home>/.codex`). */
  codexHome?: string;
  /** The current commands, to recognise hooks written without the marker; optional. */
  commands?: InstallCommands;
  /**
   * Remove only `projectDir`'s wiring (its hook files, its MCP entries and the folders install
   * made in it), and keep the install record of everything else. User-level wiring (`~/.claude`,
   * `~/.claude.json`, `~/.kiro/agents`), other projects, the scripts hooks run and the data dir
   * are left alone, whatever `keepData` says.
   */
  projectOnly?: boolean;
}

/** One change to the file system. */
export type PlanAction =
  | {
    /** Create a file, or replace a file that is wholly ours. */
    kind: "write";
    path: string;
    description: string;
    content: string;
    /** The file's text when planned (null: it did not exist). */
    expected: string | null;
    /** A data-dir file: folder 0700, file 0600. */
    private?: boolean;
    /** A data-dir script: folder 0700, file 0700 (the collector's starter). */
    executable?: boolean;
  }
  | {
    /** Add our entries to a file shared with others. */
    kind: "merge";
    path: string;
    description: string;
    content: string;
    expected: string;
  }
  | {
    /** Take our entries out of a file shared with others. */
    kind: "remove-entry";
    path: string;
    description: string;
    content: string;
    expected: string;
  }
  | {
    /** Delete a file. */
    kind: "delete";
    path: string;
    description: string;
    expected: string;
  }
  | {
    /** Remove a folder: only if empty, or with everything in it (the data dir). */
    kind: "remove-dir";
    path: string;
    description: string;
    recursive: boolean;
  };

/** A computed install or uninstall. */
export interface Plan {
  /** What the plan does. */
  operation: "install" | "uninstall";
  /** The changes, in the order they are applied. */
  actions: PlanAction[];
  /** Files already exactly as install wants them. */
  unchanged: string[];
  /** Things the user should know; none stops the plan. */
  warnings: string[];
  /** The Kiro CLI hook format chosen (install only). */
  kiroFormat?: KiroFormatChoice;
  /** The home folder, to print paths as `~/...`. */
  home: string;
  /** Agents left out because a file of theirs cannot be read or parsed (install only). */
  skipped?: InstallAgent[];
}

/**
 * The agents `install --agents` chooses from: Kiro (CLI and IDE), Claude Code, Codex CLI and
 * Gemini CLI.
 */
export const INSTALL_AGENTS = [
  "kiro",
  "claude-code",
  "codex",
  "gemini-cli",
  "copilot-cli",
] as const;

/** One of {@linkcode INSTALL_AGENTS}. */
export type InstallAgent = typeof INSTALL_AGENTS[number];

/** The agent a kind of file belongs to. */
export function agentOfTarget(kind: TargetKind): InstallAgent {
  if (kind.startsWith("codex-")) return "codex";
  if (kind.startsWith("gemini-")) return "gemini-cli";
  if (kind.startsWith("copilot-")) return "copilot-cli";
  return kind.startsWith("claude-") ? "claude-code" : "kiro";
}

/** How messages name each of {@linkcode INSTALL_AGENTS}. */
export const INSTALL_AGENT_NAMES: Readonly<Record<InstallAgent, string>> = {
  kiro: "Kiro",
  "claude-code": "Claude Code",
  codex: "Codex CLI",
  "gemini-cli": "Gemini CLI",
  "copilot-cli": "Copilot CLI",
};

/** What {@linkcode apply} did. */
export interface ApplyResult {
  /** Number of actions performed. */
  applied: number;
}

/**
 * Computes an install: the three LLM agents, the Kiro CLI capture config in exactly one format
 * (the other format's entries are removed), the Kiro and Claude Code MCP registrations, the
 * Claude Code hooks in one scope (the other scope's are removed), optionally the legacy IDE hook
 * files, default settings, and the install record. Reads every file first; throws
 * {@linkcode InstallError} listing every problem before anything is written.
 */
export async function planInstall(options: InstallOptions): Promise<Plan> {
  const home = absolute(options.home);
  const project = absolute(options.projectDir);
  const dataDir = absolute(options.dataDir ?? join(home, ".kiro-learn"));
  const hooks = hookSet(options.commands);
  const paths = installPaths(home, project, {
    codexHome: codexHomeOf(options),
    copilotHome: options.copilotHome,
  });
  const warnings: string[] = [];

  // An explicit v3 needs nothing from kiro-cli; v2 and auto need to know whether it is there.
  const version = options.kiroCliVersion !== undefined
    ? options.kiroCliVersion
    : options.kiroFormat === "v3"
    ? null
    : await probeKiroCliVersion();
  const choice = chooseKiroFormat(options.kiroFormat ?? "auto", version);
  const major = version === null ? null : parseKiroCliVersion(version)?.major ?? null;
  if (choice.format === "v2" && major !== null && major >= 3) {
    warnings.push(
      `kiro-cli ${major}.x reads both the kiro-learn agent's hooks and .kiro/hooks files: with ` +
        "--kiro-format v2 a chat with the kiro-learn agent is captured twice; " +
        "`kiro-learn install --kiro-format v3` wires it once",
    );
  }
  const scope = options.scope ?? "user";
  const legacy = options.kiroIdeLegacy ?? false;

  const record = readManifest(manifestPath(dataDir));
  if (record.warning) warnings.push(record.warning);
  const manifest = trustedManifest(record.manifest, { paths, warnings });

  const chosen = chooseTargets(paths, manifest, {
    format: choice.format,
    scope,
    legacy,
  });
  // An agent whose file cannot be read or parsed is left out (said in a warning, and the exit
  // code): it must not block every other agent. No file of it is touched.
  const selected = new Set(options.agents ?? INSTALL_AGENTS);
  const skipped: InstallAgent[] = [];
  // Codex CLI refuses to start with a CODEX_HOME that does not exist: nothing to wire there.
  if (selected.has("codex") && options.codexHome !== undefined && !exists(paths.codexHome)) {
    skipped.push("codex");
    selected.delete("codex");
    warnings.push(
      `Codex CLI skipped (none of its files changed; the other agents are installed): ` +
        `CODEX_HOME is ${paths.codexHome}, which does not exist (Codex CLI does not start with ` +
        "it either). Create that folder, or unset CODEX_HOME, then run install again.",
    );
  }
  const mine = (targets: [TargetKind, string][]) =>
    targets.filter(([kind]) => selected.has(agentOfTarget(kind)));
  const read = readEach([...mine(chosen.desired), ...mine(chosen.unwanted)]
    .map(([, path]) => path));
  for (const agent of selected) {
    const broken = [...mine(chosen.desired), ...mine(chosen.unwanted)]
      .filter(([kind, path]) => agentOfTarget(kind) === agent && read.problems.has(path));
    if (broken.length === 0) continue;
    skipped.push(agent);
    selected.delete(agent);
    const why = [...new Set(broken.flatMap(([, path]) => read.problems.get(path)!))];
    warnings.push(
      `${INSTALL_AGENT_NAMES[agent]} skipped (none of its files changed; the ` +
        `other agents are installed): ${why.join(" ")}`,
    );
  }
  if (selected.size === 0) throw new InstallError([...read.problems.values()].flat());
  const desired = mine(chosen.desired);
  const unwanted = mine(chosen.unwanted);
  const states = read.states;

  let seed = null;
  if (choice.format === "v2" && states.get(paths.chatAgent)!.text === null) {
    const seeder = options.seedAgent ??
      (() =>
        version === null
          ? Promise.resolve<SeedResult>({ agent: null, warning: "kiro-cli not found" })
          : seedKiroAgent());
    const seeded = await seeder();
    seed = seeded.agent;
    if (seeded.warning) {
      warnings.push(
        `${seeded.warning}; the kiro-learn agent is written from kiro-learn's template`,
      );
    }
  }

  const actions: PlanAction[] = [];
  const unchanged: string[] = [];
  const problems: string[] = [];
  const next: Manifest = cloneJson(manifest);
  const installed = new Map<string, JsonObject>();
  for (const [kind, path] of desired) {
    const target = makeTarget(kind, path, { hooks, seed });
    const state = states.get(path)!;
    let doc;
    try {
      doc = target.install(state.doc);
    } catch (error) {
      if (!(error instanceof InstallError)) throw error;
      problems.push(...error.problems);
      continue;
    }
    installed.set(path, doc);
    const created = state.text === null;
    const content = serializeJson(
      doc,
      target.owned === true || created ? DEFAULT_STYLE : state.style,
    );
    if (next.files[path] === undefined || created) {
      // Only empty containers under the keys we edit matter; ~/.claude.json holds thousands more.
      const keep = state.doc
        ? hollowPaths(state.doc).filter((p) => target.roots.includes(p[0]))
        : [];
      next.files[path] = { kind, created, keep };
    } else {
      next.files[path].kind = kind;
    }
    // What this install leaves in a file it created or owns whole: uninstall deletes that file
    // only while it still holds exactly this (see `removal`).
    if (next.files[path].created || target.owned === true) {
      next.files[path].sha256 = sha256Hex(content);
    } else {
      delete next.files[path].sha256;
    }
    if (content === state.text) {
      unchanged.push(path);
      continue;
    }
    if (!created && target.owned !== true) noteReformat(state, warnings);
    actions.push(
      created || target.owned === true
        ? {
          kind: "write",
          path,
          description: `${created ? "add" : "rewrite"} ${target.label}`,
          content,
          expected: state.text,
        }
        : {
          kind: "merge",
          path,
          description: `add ${target.label}`,
          content,
          expected: state.text!,
        },
    );
  }
  for (const [kind, path] of unwanted) {
    const target = makeTarget(kind, path, { hooks });
    const action = removal(target, states.get(path)!, {
      record: manifest.files[path],
      warnings,
      paths,
    });
    if (action) actions.push(action);
    delete next.files[path];
  }
  if (problems.length > 0) throw new InstallError(problems);
  // Codex trusts a hook by an entry in the user's config.toml, for a hooks.json at either scope.
  const codexHooksPath = [paths.codexHooks, paths.codexProjectHooks].find((p) => installed.has(p));
  if (selected.has("codex") && codexHooksPath !== undefined) {
    const trust = codexTrust(
      installed.get(codexHooksPath)!,
      codexHooksPath,
      (command) => isOurCommand(command, hooks.known),
    );
    const action = codexConfigInstall(
      paths.codexConfig,
      { trust, mcp: hooks.mcpHttp ?? hooks.mcp },
      warnings,
    );
    if (action === null) unchanged.push(paths.codexConfig);
    else actions.push(action);
  }

  for (const action of actions) {
    if (action.kind !== "write" && action.kind !== "merge") continue;
    for (const dir of missingDirs(dirname(action.path))) {
      if (!isInside(dir, dataDir)) next.dirs.push(dir);
    }
  }

  const settingsPath = join(dataDir, SETTINGS_FILE);
  const settingsText = readOrProblem(settingsPath, problems);
  // The hooks are written for this host and port: settings.json must say the same, or the
  // collector would listen elsewhere (KIRO_LEARN_PORT at install time is not there at start).
  const collector = { ...DEFAULTS.collector, ...options.collector };
  if (settingsText === null && problems.length === 0) {
    const changed = collector.host !== DEFAULTS.collector.host ||
      collector.port !== DEFAULTS.collector.port;
    actions.push({
      kind: "write",
      path: settingsPath,
      description: changed
        ? `add kiro-learn settings (defaults, collector at ${collector.host}:${collector.port})`
        : "add kiro-learn settings (all defaults)",
      content: JSON.stringify({ ...DEFAULTS, collector }, null, 2) + "\n",
      expected: null,
      private: true,
    });
  } else if (settingsText !== null && options.collector !== undefined) {
    const saved = savedCollector(settingsText, dataDir);
    if (saved.host !== collector.host || saved.port !== collector.port) {
      warnings.push(
        `the hooks are written for ${collector.host}:${collector.port} (KIRO_LEARN_HOST/PORT), ` +
          `but ${settingsPath} says ${saved.host}:${saved.port}: put the same in settings.json ` +
          "so the collector listens where the hooks post",
      );
    }
  }
  // The scripts hooks run: their launchers, and the one that starts a collector that is down.
  const scripts = [
    ...(options.commands.launchers?.() ?? []).map((l) => ({
      ...l,
      description: "add the launcher the hooks and the MCP entry run",
    })),
    {
      path: dataPaths(dataDir).starter,
      content: starterScript({ dataDir, denoPath: options.denoPath }),
      description: "add the script hooks run to start the collector when it is down",
    },
  ];
  for (const script of scripts) {
    const current = readTextOrNull(script.path);
    if (current === script.content) continue;
    actions.push({ kind: "write", ...script, expected: current, executable: true });
  }
  if (problems.length > 0) throw new InstallError(problems);
  const manifestText = serializeManifest(next);
  if (manifestText !== record.text) {
    actions.push({
      kind: "write",
      path: manifestPath(dataDir),
      description: "record what kiro-learn installed (for a clean uninstall)",
      content: manifestText,
      expected: record.text,
      private: true,
    });
  }
  return {
    operation: "install",
    actions,
    unchanged,
    warnings,
    kiroFormat: choice,
    home,
    skipped,
  };
}

/**
 * Computes an uninstall: our entries out of every config file we may have touched (this
 * project's, the user's, and every file the install record lists), files we created deleted,
 * folders we created removed when empty, and the data dir removed unless `keepData`.
 * Throws {@linkcode InstallError} listing every problem before anything is written.
 */
export function planUninstall(options: UninstallOptions): Promise<Plan> {
  const home = absolute(options.home);
  const project = absolute(options.projectDir);
  const dataDir = absolute(options.dataDir ?? join(home, ".kiro-learn"));
  const hooks = options.commands ? hookSet(options.commands) : recogniseOnly();
  const paths = installPaths(home, project, {
    codexHome: codexHomeOf(options),
    copilotHome: options.copilotHome,
  });
  const warnings: string[] = [];
  const record = readManifest(manifestPath(dataDir));
  if (record.warning) warnings.push(record.warning);
  const manifest = trustedManifest(record.manifest, { paths, warnings });

  // A project's own: inside its folder and of a project kind (a project may be $HOME itself).
  const ofProject = (kind: TargetKind, path: string) =>
    isInside(path, project) && scopeOf(kind) === "project";
  // A folder is the project's when inside it and no user-level file lives in it (with $HOME as
  // the project, ~/.claude and ~/.kiro hold the user's wiring too).
  const userFiles = everyFile(paths).filter(([kind]) => scopeOf(kind) === "user");
  const projectDirOnly = (dir: string) =>
    isInside(dir, project) && !userFiles.some(([, path]) => isInside(path, dir));
  const all = dedupe([
    ...everyFile(paths),
    ...Object.entries(manifest.files).map(([path, entry]): [TargetKind, string] => [
      entry.kind,
      path,
    ]),
  ]);
  const candidates = options.projectOnly
    ? all.filter(([kind, path]) => ofProject(kind, path))
    : all;
  const states = readAll(candidates.map(([, path]) => path));
  const actions: PlanAction[] = [];
  for (const [kind, path] of candidates) {
    const action = removal(makeTarget(kind, path, { hooks }), states.get(path)!, {
      record: manifest.files[path],
      warnings,
      paths,
    });
    if (action) actions.push(action);
  }
  // Codex's config.toml is user-level wiring: a project's uninstall leaves it.
  const codexConfig = options.projectOnly ? null : codexConfigRemoval(paths.codexConfig);
  if (codexConfig !== null) actions.push(codexConfig);

  const dirs = [...new Set(manifest.dirs)].sort((a, b) => b.length - a.length);
  for (const dir of dirs) {
    if (isInside(dir, dataDir)) continue;
    if (options.projectOnly && !projectDirOnly(dir)) continue;
    // Only the agents' config folders install makes (and only when empty, below).
    if (!knownDir(dir, paths)) {
      warnings.push(
        `not removing ${dir}: the install record names it, but install makes no such folder`,
      );
      continue;
    }
    actions.push({
      kind: "remove-dir",
      path: dir,
      description: "remove this folder kiro-learn created, if nothing else is in it",
      recursive: false,
    });
  }

  if (options.projectOnly) {
    // The rest stays installed: its record stays, without this project's files and folders.
    if (record.text !== null) {
      const rest = serializeManifest({
        ...manifest,
        files: Object.fromEntries(
          Object.entries(manifest.files).filter(([path, entry]) => !ofProject(entry.kind, path)),
        ),
        dirs: manifest.dirs.filter((dir) => !projectDirOnly(dir)),
      });
      if (rest !== record.text) {
        actions.push({
          kind: "write",
          path: manifestPath(dataDir),
          description: "record that this project's wiring is gone (the rest stays recorded)",
          content: rest,
          expected: record.text,
          private: true,
        });
      }
    }
    return Promise.resolve({ operation: "uninstall", actions, unchanged: [], warnings, home });
  }
  const dataDirExists = exists(dataDir);
  if (!options.keepData && dataDirExists) {
    const unsafe = unsafeToRemove(dataDir, home, project);
    if (unsafe) {
      warnings.push(`not removing the data dir ${dataDir}: ${unsafe}. Remove it by hand.`);
    } else {
      actions.push({
        kind: "remove-dir",
        path: dataDir,
        description: "remove the kiro-learn data dir (database, settings, token, logs, spool)",
        recursive: true,
      });
    }
  }
  // Our scripts in the data dir's bin/ go with the hooks that ran them (the data stays).
  const bin = dataPaths(dataDir).bin;
  const scripts = options.keepData && exists(bin)
    ? [...Deno.readDirSync(bin)].filter((e) => e.isFile && OUR_SCRIPTS.test(e.name))
      .map((e) => join(bin, e.name)).sort()
    : [];
  for (const path of scripts) {
    const text = readTextOrNull(path);
    // Only a script install wrote (core/launch's scripts all say so on their second line).
    if (text === null || !text.split("\n", 3)[1]?.startsWith(SCRIPT_MARK)) continue;
    actions.push({
      kind: "delete",
      path,
      description: "remove a script the hooks ran (hook launcher or collector starter)",
      expected: text,
    });
  }
  if ((options.keepData || !dataDirExists) && record.text !== null) {
    actions.push({
      kind: "delete",
      path: manifestPath(dataDir),
      description: "remove the install record (the data is kept)",
      expected: record.text,
    });
  }
  return Promise.resolve({ operation: "uninstall", actions, unchanged: [], warnings, home });
}

/**
 * Performs a plan. First checks that every file it changes is still exactly as planned (throws
 * {@linkcode InstallError} naming the changed files, with nothing written); then applies the
 * actions in order. Writes are atomic, keep file modes, and go through symlinks.
 */
export function apply(plan: Plan): ApplyResult {
  const problems: string[] = [];
  for (const action of plan.actions) {
    if (action.kind === "remove-dir") continue;
    let current: string | null;
    try {
      current = readTextOrNull(action.path);
    } catch (error) {
      problems.push(...(error as InstallError).problems);
      continue;
    }
    if (current !== action.expected) {
      problems.push(`${action.path} changed after the plan was made; run the command again.`);
    }
  }
  if (problems.length > 0) throw new InstallError(problems);
  let applied = 0;
  for (const action of plan.actions) {
    switch (action.kind) {
      case "write":
      case "merge":
      case "remove-entry":
        if (action.kind === "write" && action.private) {
          ensureDataDir(dirname(action.path));
          writeSecureFile(action.path, action.content);
        } else if (action.kind === "write" && action.executable) {
          ensureDataDir(dirname(action.path));
          writeFileAtomic(action.path, action.content, { mode: 0o700 });
        } else {
          writeFileAtomic(action.path, action.content);
        }
        break;
      case "delete":
        deleteFile(action.path);
        break;
      case "remove-dir":
        removeDir(action.path, action.recursive);
        break;
    }
    applied++;
  }
  return { applied };
}

/** The plan as text: one line per action, then unchanged files and warnings. */
export function formatPlan(plan: Plan, options: { dryRun?: boolean } = {}): string {
  const tilde = (path: string) => {
    const rel = relative(plan.home, path);
    return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? `~/${rel}` : path;
  };
  const lines = [
    `kiro-learn ${plan.operation}${options.dryRun ? " (dry run: nothing will be changed)" : ""}`,
  ];
  if (plan.kiroFormat) {
    lines.push(`Kiro CLI hook format: ${plan.kiroFormat.format} (${plan.kiroFormat.reason})`);
  }
  if (plan.actions.length === 0) {
    lines.push(
      plan.operation === "install" ? "  nothing to do: already installed" : "  nothing to remove",
    );
  }
  for (const action of plan.actions) {
    const verb = action.kind === "write"
      ? action.expected === null ? "create" : "replace"
      : action.kind === "merge" || action.kind === "remove-entry"
      ? "update"
      : action.kind === "delete"
      ? "delete"
      : "remove";
    lines.push(`  ${verb.padEnd(7)} ${tilde(action.path)}: ${action.description}`);
  }
  if (plan.unchanged.length > 0) {
    lines.push(`  (${plan.unchanged.length} file(s) already up to date)`);
  }
  for (const warning of plan.warnings) lines.push(`warning: ${warning}`);
  if (plan.operation === "install" && plan.kiroFormat?.format === "v2") {
    lines.push(`next: ${KIRO_CLI_V2_SELECT_AGENT}`);
  }
  return lines.join("\n");
}

/**
 * The files an install wants our entries in, and the files whose entries must go: the Kiro
 * format and Claude scope not chosen (in this project and wherever the record says we put them),
 * and the legacy IDE files when the flag is off.
 */
function chooseTargets(
  paths: InstallPaths,
  manifest: Manifest,
  choice: { format: KiroFormat; scope: "user" | "project"; legacy: boolean },
): { desired: [TargetKind, string][]; unwanted: [TargetKind, string][] } {
  const { format, scope, legacy } = choice;
  const ideFiles = KIRO_IDE_HOOKS.map((h) => join(paths.kiroHooksDir, h.file));
  // The v1 hook file serves Kiro CLI 3.x and Kiro IDE 1.x, so it is written in either format:
  // Kiro CLI 2.x (v2) reads only the hooks embedded in its agent, never that file.
  const desired: [TargetKind, string][] = [
    ...llmAgentPaths(paths.kiroAgentsDir).map((p): [TargetKind, string] => ["kiro-llm-agent", p]),
    ...(format === "v2" ? [["kiro-chat-agent", paths.chatAgent] as [TargetKind, string]] : []),
    ["kiro-hooks", paths.kiroHooks],
    ["kiro-mcp", paths.kiroMcp],
    ...(legacy ? ideFiles.map((p): [TargetKind, string] => ["kiro-ide-hook", p]) : []),
    scope === "user"
      ? ["claude-settings-user", paths.claudeUserSettings]
      : ["claude-settings-project", paths.claudeProjectSettings],
    scope === "user"
      ? ["claude-mcp-user", paths.claudeUserMcp]
      : ["claude-mcp-project", paths.claudeProjectMcp],
    // Codex reads a project's hooks only in a project the user trusted (docs/install.md).
    scope === "user"
      ? ["codex-hooks", paths.codexHooks]
      : ["codex-hooks-project", paths.codexProjectHooks],
    ["gemini-settings-user", paths.geminiUserSettings],
    // Copilot CLI runs a repository's .github/hooks for everyone who clones it: user scope only.
    ["copilot-hooks", paths.copilotHooks],
    ["copilot-mcp-user", paths.copilotMcp],
  ];
  // Kiro CLI 3.x reads the agent's embedded hooks too, and both Claude scopes at once would
  // capture every event twice: the ones not chosen are removed, in this project and wherever the
  // record says we put them.
  const other: [TargetKind, string][] = format === "v2"
    ? []
    : [["kiro-chat-agent", paths.chatAgent]];
  if (scope === "user") {
    other.push(["claude-settings-project", paths.claudeProjectSettings]);
    other.push(["claude-mcp-project", paths.claudeProjectMcp]);
    other.push(["codex-hooks-project", paths.codexProjectHooks]);
  } else {
    other.push(["claude-settings-user", paths.claudeUserSettings]);
    other.push(["claude-mcp-user", paths.claudeUserMcp]);
    other.push(["codex-hooks", paths.codexHooks]);
  }
  const otherKinds = new Set(other.map(([kind]) => kind));
  for (const [path, entry] of Object.entries(manifest.files)) {
    if (otherKinds.has(entry.kind)) other.push([entry.kind, path]);
  }
  if (!legacy) other.push(...ideFiles.map((p): [TargetKind, string] => ["kiro-ide-hook", p]));
  const desiredPaths = new Set(desired.map(([, path]) => path));
  const unwanted = dedupe(other).filter(([, path]) => !desiredPaths.has(path));

  return { desired, unwanted };
}

/** Builds the hook commands from the caller's argvs; throws InstallError for an unusable one. */
function hookSet(commands: InstallCommands): HookSet {
  try {
    const kiro = commands.shim("kiro-cli");
    const claude = commands.shim("claude-code");
    const codex = commands.shim("codex");
    const ideBase = commands.shim("kiro-ide");
    const gemini = commands.shim("gemini-cli");
    const copilot = commands.shim("copilot-cli");
    const mcp = commands.mcp();
    for (const argv of [kiro, claude, codex, ideBase, gemini, copilot, mcp]) assertArgv(argv);
    const ide = new Map(
      KIRO_IDE_HOOKS.map((
        h,
      ) => [h.event, hookCommand(commands.shim("kiro-ide", [h.event]), { passAgentPid: true })]),
    );
    return {
      kiroCli: hookCommand(kiro, { passAgentPid: true }),
      claudeCode: hookCommand(claude, { exec: true }),
      claudeCodeStore: hookCommand([...claude, STORE_ONLY_ARG], { exec: true }),
      codex: hookCommand(codex, { exec: true }),
      geminiCli: hookCommand(gemini, { exec: true }),
      copilotCli: (event) => hookCommand(commands.shim("copilot-cli", [event]), { exec: true }),
      kiroIde: (event) => ide.get(event)!,
      mcp: { command: mcp[0], args: mcp.slice(1) },
      mcpHttp: commands.mcpHttp?.() ?? null,
      mcpRelay: relayEntry(commands.mcpRelay?.() ?? null),
      known: [
        quoteArgv(kiro),
        quoteArgv(claude),
        quoteArgv(codex),
        quoteArgv(ideBase),
        quoteArgv(gemini),
        quoteArgv(copilot),
      ],
    };
  } catch (error) {
    if (error instanceof InstallError) throw error;
    throw new InstallError(`the shim or MCP command is unusable: ${(error as Error).message}`);
  }
}

/** The relay's MCP entry, checked like every command, or null. */
function relayEntry(argv: string[] | null): { command: string; args: string[] } | null {
  if (argv === null) return null;
  assertArgv(argv);
  return { command: argv[0], args: argv.slice(1) };
}

/** Hooks for uninstall without commands: recognition by marker only, nothing to write. */
function recogniseOnly(): HookSet {
  return {
    kiroCli: "",
    claudeCode: "",
    claudeCodeStore: "",
    codex: "",
    geminiCli: "",
    copilotCli: () => "",
    kiroIde: () => "",
    mcp: { command: "", args: [] },
    mcpHttp: null,
    known: [],
  };
}

/**
 * The change to Codex's `config.toml` an install makes (our block: the MCP server and our hooks'
 * trust), or null when it is already so. Only the block is written; the rest of the file is
 * never parsed nor rewritten, so it stays byte for byte.
 */
function codexConfigInstall(
  path: string,
  parts: { trust: readonly CodexTrust[]; mcp: CodexMcpEntry },
  warnings: string[],
): PlanAction | null {
  const current = readTextOrNull(path);
  const text = current ?? "";
  const block = codexConfigBlock(text, path, parts);
  if (block.clashes.length > 0) {
    throw new InstallError(
      `${path} defines ${block.clashes.join(", ")}: adding kiro-learn's table there would make ` +
        "the file invalid TOML. Move that setting into a table of its own ([table] form), or " +
        "install without Codex (--agents kiro,claude-code), then run again.",
    );
  }
  warnings.push(...block.warnings);
  const content = withTomlBlock(text, block.body, path);
  if (content === text) return null;
  return current === null
    ? {
      kind: "write",
      path,
      description: "add Codex CLI MCP server and hook trust",
      content,
      expected: null,
    }
    : {
      kind: "merge",
      path,
      description: "add Codex CLI MCP server and hook trust (kiro-learn's block only)",
      content,
      expected: current,
    };
}

/**
 * The change that takes our block out of Codex's `config.toml`, or null when it has none. A file
 * that held nothing but our block (one install created) is deleted.
 */
function codexConfigRemoval(path: string): PlanAction | null {
  const current = readTextOrNull(path);
  if (current === null) return null;
  const stripped = withoutTomlBlock(current, path);
  if (stripped === current) return null;
  if (stripped === "") {
    return {
      kind: "delete",
      path,
      description: "remove Codex CLI config kiro-learn created (it held only kiro-learn's block)",
      expected: current,
    };
  }
  return {
    kind: "remove-entry",
    path,
    description: "remove kiro-learn's block (Codex CLI MCP server and hook trust)",
    content: stripped,
    expected: current,
  };
}

/**
 * The install record without what install never writes: a file not where install puts one of its
 * kind ({@linkcode knownLocation}), a folder that is not one of the agents' config folders. The
 * record lives in the data dir; whatever wrote such an entry (a daemon could, before the record
 * was put out of its reach), uninstall will not delete or rewrite what it names.
 */
function trustedManifest(
  manifest: Manifest,
  options: { paths: InstallPaths; warnings: string[] },
): Manifest {
  const files: Manifest["files"] = {};
  for (const [path, entry] of Object.entries(manifest.files)) {
    if (knownLocation(entry.kind, path, options.paths)) files[path] = entry;
    else {
      options.warnings.push(
        `not touching ${path}: the install record lists it as a ${entry.kind} file, but install ` +
          "puts none there. Remove kiro-learn's entries from it by hand if it has any.",
      );
    }
  }
  const dirs = manifest.dirs.filter((dir) => {
    const known = knownDir(dir, options.paths);
    if (!known) {
      options.warnings.push(
        `not removing ${dir}: the install record names it, but install makes no such folder`,
      );
    }
    return known;
  });
  return { ...manifest, files, dirs };
}

/** Codex CLI's home from the options (absolute), or undefined for the default `<home>/.codex`. */
function codexHomeOf(options: { codexHome?: string }): string | undefined {
  return options.codexHome === undefined ? undefined : absolute(options.codexHome);
}

/**
 * Whether `path` is where install puts a file of `kind` (as the kind's agent says): a user-scope
 * file exactly where `paths` (the user's home, `CODEX_HOME`) puts it, a project file at its place
 * under some project folder. An install record naming anything else (a record the daemon could
 * once write) is not acted on.
 */
export function knownLocation(kind: TargetKind, path: string, paths: InstallPaths): boolean {
  if (!isAbsolute(path) || path !== resolve(path)) return false;
  if (scopeOf(kind) === "user") return filesOf(kind, paths).includes(path);
  const tails = filesOf(kind, installPaths(LAYOUT_BASE, LAYOUT_BASE)).map((p) =>
    p.slice(LAYOUT_BASE.length)
  );
  return tails.some((tail) => path.endsWith(tail));
}

/**
 * The action that takes our entries out of one file, or null when there is nothing of ours. A
 * whole file goes only when it is where install puts one ({@linkcode knownLocation}) and holds
 * what install wrote (the record's hash) or, for a file wholly ours, is recognisably ours;
 * otherwise only our entries are taken out, and a file outside every known place is not touched.
 */
function removal(
  target: Target,
  state: JsonFileState,
  context: { record: ManifestRecord | undefined; warnings: string[]; paths: InstallPaths },
): PlanAction | null {
  const { record, warnings } = context;
  if (state.text === null || state.doc === undefined) return null;
  // `trustedManifest` left no such record; this holds whatever the caller passed.
  if (!knownLocation(target.kind, target.path, context.paths)) return null;
  const verified = record?.sha256 !== undefined && sha256Hex(state.text) === record.sha256;
  if (target.owned === true) {
    // Without a record (or with one whose hash no longer matches), a file at our path is
    // deleted only if it is recognisably ours.
    if (!verified && !target.recognise(state.doc)) return null;
    return {
      kind: "delete",
      path: target.path,
      description: `remove ${target.label}`,
      expected: state.text,
    };
  }
  if (target.owned === "when-created" && record?.created === true && verified) {
    return {
      kind: "delete",
      path: target.path,
      description: `remove ${target.label}`,
      expected: state.text,
    };
  }
  const stripped = target.strip(state.doc);
  const keep = record?.keep ?? [];
  const emptied = hollowedPaths(state.doc, stripped)
    .filter((path) => target.roots.includes(path[0]))
    .filter((path) => !keep.some((kept) => samePath(kept, path)))
    .sort((a, b) => b.length - a.length);
  for (const path of emptied) deletePath(stripped, path);
  // A file install created and nobody changed since, holding nothing but our scaffolding once our
  // entries are out, goes too. Anything else keeps its scaffolding: a record from an older
  // install has no hash, and a record's word that install created a file proves nothing.
  if (record?.created && verified && target.residual(stripped)) {
    return {
      kind: "delete",
      path: target.path,
      description: `remove ${target.label}`,
      expected: state.text,
    };
  }
  if (isDeepStrictEqual(stripped, state.doc)) return null;
  noteReformat(state, warnings);
  return {
    kind: "remove-entry",
    path: target.path,
    description: `remove kiro-learn's entries (${target.label})`,
    content: serializeJson(stripped, state.style),
    expected: state.text,
  };
}

/** Warns when rewriting a user's file cannot reproduce its layout (odd spacing, escapes). */
function noteReformat(state: JsonFileState, warnings: string[]): void {
  if (state.text !== null && serializeJson(state.doc, state.style) !== state.text) {
    warnings.push(
      `${state.path} will be re-serialised; its formatting may change (content is kept).`,
    );
  }
}

/** Reads every file, collecting every problem; throws them together. */
// Every file read, or the problems of the ones that cannot be.
function readEach(
  paths: string[],
): { states: Map<string, JsonFileState>; problems: Map<string, string[]> } {
  const states = new Map<string, JsonFileState>();
  const problems = new Map<string, string[]>();
  for (const path of paths) {
    if (states.has(path) || problems.has(path)) continue;
    try {
      states.set(path, readJsonFile(path));
    } catch (error) {
      if (!(error instanceof InstallError)) throw error;
      problems.set(path, [...error.problems]);
    }
  }
  return { states, problems };
}

function readAll(paths: string[]): Map<string, JsonFileState> {
  const { states, problems } = readEach(paths);
  if (problems.size > 0) throw new InstallError([...problems.values()].flat());
  return states;
}

function readOrProblem(path: string, problems: string[]): string | null {
  try {
    return readTextOrNull(path);
  } catch (error) {
    if (!(error instanceof InstallError)) throw error;
    problems.push(...error.problems);
    return null;
  }
}

function dedupe(pairs: [TargetKind, string][]): [TargetKind, string][] {
  const seen = new Set<string>();
  return pairs.filter(([, path]) => !seen.has(path) && seen.add(path) !== undefined);
}

/** `dir` and its missing ancestors, outermost first. */
function missingDirs(dir: string): string[] {
  const out: string[] = [];
  let current = dir;
  while (!exists(current)) {
    out.unshift(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return out;
}

function removeDir(path: string, recursive: boolean): void {
  try {
    Deno.removeSync(path, { recursive });
  } catch (error) {
    // A folder the user (or the agent) has put files in since is theirs now: leave it.
    if (error instanceof Deno.errors.NotFound) return;
    if (!recursive) return;
    throw error;
  }
}

/** Why removing `dir` recursively would be dangerous, or null when it is safe. */
function unsafeToRemove(dir: string, home: string, project: string): string | null {
  if (dirname(dir) === dir) return "it is the file-system root";
  if (dir === home || isInside(home, dir)) return "it is or contains the home folder";
  if (dir === project || isInside(project, dir)) return "it is or contains the project";
  return null;
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function absolute(path: string): string {
  const full = resolve(path);
  try {
    return Deno.realPathSync(full);
  } catch {
    return full;
  }
}
