/**
 * `kiro-learn doctor`: one line per check (ok, warn or fail) with a fix for anything not ok, and
 * an exit code (1 when anything failed). Read-only: it never changes a file.
 *
 * @module
 */
import { isAbsolute, join, relative } from "node:path";
import { MCP_SERVER_NAME } from "@kiro-learn/agents";
import {
  collectorBaseUrl,
  collectorMcpUrl,
  portTakenMessage,
  probeCollector,
} from "@kiro-learn/core/api";
import {
  DEFAULTS,
  type EnvLike,
  loadSettings,
  SETTINGS_FILE,
  type SettingsValues,
} from "@kiro-learn/core/settings";
import type { ProjectIdentity } from "@kiro-learn/core/project";
import { DROPPED_LOG, spoolFilling, spoolStatus } from "@kiro-learn/core/spool";
import { resolveCommand } from "../../daemon/permissions/mod.ts";
import { isPlainObject, type JsonObject, readJsonFile, readTextOrNull } from "./_json_file.ts";
import type { InstallCommands } from "./plan.ts";
import { hookArgv, isOurCommand, quoteArgv, splitCommand } from "./shell.ts";
import {
  AGENTS,
  codexHomeFromEnv,
  codexTrust,
  copilotHome,
  type DoctorSource,
  type InstallPaths,
  installPaths,
  ourHookCommands,
  projectTrustedIn,
  trustedIn,
} from "./_targets.ts";
import { KIRO_CLI_V2_SELECT_AGENT } from "./_agent_kiro_cli.ts";
import { parseKiroCliVersion, probeKiroCliVersion } from "./kiro_cli.ts";

/** The outcome of one check. */
export type CheckStatus = "ok" | "warn" | "fail";

/** One check. */
export interface DoctorCheck {
  /** Short name, e.g. `collector`. */
  name: string;
  /** ok, warn or fail. */
  status: CheckStatus;
  /** What was found. */
  message: string;
  /** What to do about it (absent when ok). */
  fix?: string;
}

/** All checks and the exit code. */
export interface DoctorReport {
  /** The checks, in the order they ran. */
  checks: DoctorCheck[];
  /** 0 when nothing failed, 1 otherwise. */
  exitCode: 0 | 1;
  /** One line: counts of ok, warn and fail. */
  summary: string;
}

/**
 * Who answers on the collector's port: our collector (and its version), `"foreign"` for a
 * process that is not this data dir's collector, or null when nothing answered.
 */
export type HealthProbe = (
  url: string,
  options: { host: string; port: number; tokenPath: string },
) => Promise<{ version?: string } | "foreign" | null>;

/** Options of {@linkcode doctor}. */
export interface DoctorOptions {
  /** The user's home folder. */
  home: string;
  /** The project root to inspect. */
  projectDir: string;
  /** The data dir; defaults to `<home>/.kiro-learn`. */
  dataDir?: string;
  /** Environment for settings overrides and `PATH` (default: the process environment). */
  env?: EnvLike;
  /** The current commands, to recognise hooks written without the marker. */
  commands?: InstallCommands;
  /** How to ask who holds the collector's port (default: the hello proof, then GET /healthz). */
  probeHealth?: HealthProbe;
  /** Where each line is printed (default `console.log`); pass `() => {}` for silence. */
  print?: (line: string) => void;
  /** The project's identity, to say where its id comes from (no line when absent). */
  project?: Pick<ProjectIdentity, "display_name" | "id_source" | "remote" | "project_id">;
  /** `kiro-cli --version`'s output, null when absent (default: asked of the kiro-cli on `PATH`). */
  kiroCliVersion?: string | null;
}

/** Runs every check, prints one line each plus a summary, and returns the report. */
export async function doctor(options: DoctorOptions): Promise<DoctorReport> {
  const home = options.home;
  const dataDir = options.dataDir ?? join(home, ".kiro-learn");
  const env = options.env ?? Deno.env.toObject();
  const known = options.commands ? knownCommands(options.commands) : [];
  const tilde = (path: string) => {
    const rel = relative(home, path);
    return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? `~/${rel}` : path;
  };
  const checks: DoctorCheck[] = [];

  checks.push(checkDataDir(dataDir, tilde));
  const { check: settingsCheck, settings } = checkSettings(dataDir, env, tilde);
  checks.push(settingsCheck);
  checks.push(checkToken(join(dataDir, "token"), tilde));
  checks.push(
    await checkCollector(settings, {
      probe: options.probeHealth ?? fetchHealth,
      tokenPath: join(dataDir, "token"),
      settingsPath: join(dataDir, SETTINGS_FILE),
    }),
  );
  if (options.project !== undefined) checks.push(checkProject(options.project));

  const paths = installPaths(home, options.projectDir, {
    codexHome: codexHomeFromEnv(env),
    copilotHome: copilotHome(home, env),
  });
  const found = new Found(known, env.PATH ?? "", tilde, home);
  // Kiro CLI 3.x runs both the agent's embedded hooks and .kiro/hooks files; 2.x (and Kiro IDE
  // 1.x, which reads the file) only one of them: both present is a double capture only for 3.x.
  const kiroCli = resolveCommand("kiro-cli", { PATH: env.PATH ?? "" });
  const version = options.kiroCliVersion !== undefined
    ? options.kiroCliVersion
    : kiroCli === null
    ? null
    : await probeKiroCliVersion({ command: kiroCli });
  const major = version === null ? null : parseKiroCliVersion(version)?.major ?? 3;
  const readsBoth = major !== null && major >= 3;
  // Each agent says where its hooks live; Kiro's files are alternatives (one format is enough).
  const surfaces = AGENTS.map((agent) =>
    found.surface(agent.name, agent.doctorSources(paths, options.projectDir), {
      alternatives: agent.alternatives,
      readsBoth,
    })
  );
  const none = surfaces.every((s) => s.missing);
  for (const surface of surfaces) {
    // Memory works as long as one agent is captured; only "none at all" is a failure.
    if (surface.missing && none) surface.check.status = "fail";
    // Kiro CLI 2.x hooks live in the kiro-learn agent and run only when it is the one chatting.
    if (
      surface.check.name === "hooks Kiro CLI" && surface.check.status !== "fail" &&
      surface.check.message.includes(tilde(paths.chatAgent))
    ) {
      surface.check.message += `; ${KIRO_CLI_V2_SELECT_AGENT}`;
    }
    checks.push(surface.check);
  }
  for (const hooksFile of [paths.codexHooks, paths.codexProjectHooks]) {
    const trust = checkCodexTrust(paths, { hooksFile, projectDir: options.projectDir }, {
      known,
      tilde,
    });
    if (trust !== null) checks.push(trust);
  }
  checks.push(found.mcp([
    paths.kiroMcp,
    paths.chatAgent,
    paths.claudeUserMcp,
    paths.claudeProjectMcp,
    paths.geminiUserSettings,
    paths.copilotMcp,
  ], { url: collectorMcpUrl(settings.collector.host, settings.collector.port) }));
  checks.push(checkExtractor(settings, env.PATH ?? ""));
  checks.push(checkAcpAgents(settings, env.PATH ?? "", join(home, ".kiro", "agents"), tilde));
  checks.push(checkSpool(join(dataDir, "spool"), settings.spool.maxBytes));

  const counts = { ok: 0, warn: 0, fail: 0 };
  for (const check of checks) counts[check.status]++;
  const report: DoctorReport = {
    checks,
    exitCode: counts.fail > 0 ? 1 : 0,
    summary: `${counts.ok} ok, ${counts.warn} warning(s), ${counts.fail} failure(s)`,
  };
  const print = options.print ?? console.log;
  for (const check of checks) print(formatCheck(check));
  print(report.summary);
  return report;
}

/** One check as one line: status, name, what was found, and the fix. */
export function formatCheck(check: DoctorCheck): string {
  const fix = check.fix ? ` (fix: ${check.fix})` : "";
  return `${check.status.padEnd(4)}  ${check.name}: ${check.message}${fix}`;
}

// --- data dir, settings, token, collector ----------------------------------------------------

// Where the project id comes from: teammates' clones agree only on a remote-derived one.
function checkProject(project: NonNullable<DoctorOptions["project"]>): DoctorCheck {
  const id = project.project_id.slice(0, 16);
  const message = project.id_source === "git-remote"
    ? `${project.display_name}, id ${id}… from remote ${project.remote?.name} ` +
      `(${project.remote?.url}): the same in every clone`
    : `${project.display_name}, id ${id}… from its path (no git remote): other checkouts and ` +
      `machines get other ids`;
  return { name: "project", status: "ok", message };
}

function checkDataDir(dir: string, tilde: (p: string) => string): DoctorCheck {
  const name = "data dir";
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(dir);
  } catch {
    return {
      name,
      status: "fail",
      message: `${tilde(dir)} does not exist`,
      fix: "kiro-learn install",
    };
  }
  if (!info.isDirectory) {
    return {
      name,
      status: "fail",
      message: `${tilde(dir)} is not a folder`,
      fix: `move it away, then kiro-learn install`,
    };
  }
  if (Deno.build.os === "windows" || info.mode === null) {
    return { name, status: "ok", message: tilde(dir) };
  }
  const mode = info.mode & 0o777;
  if (mode !== 0o700) {
    return {
      name,
      status: "warn",
      message: `${tilde(dir)} has mode ${octal(mode)}; other users may read captured sessions`,
      fix: `chmod 700 ${dir}`,
    };
  }
  const loose: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    if (!entry.isFile) continue;
    const fileMode = Deno.statSync(join(dir, entry.name)).mode;
    if (fileMode !== null && (fileMode & 0o077) !== 0) loose.push(entry.name);
  }
  if (loose.length > 0) {
    return {
      name,
      status: "warn",
      message: `${tilde(dir)} (0700) holds files other users may read: ${loose.sort().join(", ")}`,
      fix: `chmod 600 ${loose.map((f) => join(dir, f)).join(" ")}`,
    };
  }
  return { name, status: "ok", message: `${tilde(dir)} (0700, files 0600)` };
}

function checkSettings(
  dir: string,
  env: EnvLike,
  tilde: (p: string) => string,
): { check: DoctorCheck; settings: SettingsValues } {
  const name = "settings";
  const path = join(dir, SETTINGS_FILE);
  try {
    const settings = loadSettings({ dir, env });
    let present = true;
    try {
      Deno.statSync(path);
    } catch {
      present = false;
    }
    if (!present) {
      return {
        check: {
          name,
          status: "warn",
          message: `no ${tilde(path)}; the defaults apply`,
          fix: "kiro-learn install writes one with every default",
        },
        settings,
      };
    }
    const notes = settings.warnings.length > 0 ? ` (${settings.warnings.join(" ")})` : "";
    return {
      check: {
        name,
        status: settings.warnings.length > 0 ? "warn" : "ok",
        message: `${tilde(path)} is valid${notes}`,
        ...(settings.warnings.length > 0 ? { fix: `remove the unknown keys from ${path}` } : {}),
      },
      settings,
    };
  } catch (error) {
    return {
      check: {
        name,
        status: "fail",
        message: (error as Error).message.replaceAll("\n", " "),
        fix: `edit ${path} (or delete it to use the defaults)`,
      },
      settings: structuredClone(DEFAULTS) as SettingsValues,
    };
  }
}

function checkToken(path: string, tilde: (p: string) => string): DoctorCheck {
  const name = "token";
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(path);
  } catch {
    return {
      name,
      status: "warn",
      message: `no ${tilde(path)} yet; the collector creates it when it first starts`,
      fix: "kiro-learn start",
    };
  }
  if (!info.isFile || info.size === 0) {
    return {
      name,
      status: "fail",
      message: `${tilde(path)} is empty or not a file`,
      fix: `delete ${path} and restart the collector (kiro-learn stop; kiro-learn start)`,
    };
  }
  if (info.mode !== null && Deno.build.os !== "windows" && (info.mode & 0o077) !== 0) {
    return {
      name,
      status: "fail",
      message: `${tilde(path)} has mode ${
        octal(info.mode & 0o777)
      }: other users can read the API token`,
      fix: `chmod 600 ${path}`,
    };
  }
  return { name, status: "ok", message: `${tilde(path)} (0600)` };
}

async function checkCollector(
  settings: SettingsValues,
  options: { probe: HealthProbe; tokenPath: string; settingsPath: string },
): Promise<DoctorCheck> {
  const { host, port } = settings.collector;
  const url = collectorBaseUrl(host, port);
  const health = await options.probe(url, { host, port, tokenPath: options.tokenPath })
    .catch(() => null);
  if (health === "foreign") {
    return {
      name: "collector",
      status: "fail",
      message: portTakenMessage(port, { settingsPath: options.settingsPath }),
      fix: `set "collector": {"port": …} in ${options.settingsPath}, then kiro-learn install`,
    };
  }
  if (health === null) {
    return {
      name: "collector",
      status: "fail",
      message: `not reachable at ${url} (events wait in the spool until it runs)`,
      fix: "kiro-learn start",
    };
  }
  const version = health.version ? ` (version ${health.version})` : "";
  return { name: "collector", status: "ok", message: `running at ${url}${version}` };
}

async function fetchHealth(
  _url: string,
  options: { host: string; port: number; tokenPath: string },
): Promise<{ version?: string } | "foreign" | null> {
  const found = await probeCollector(options);
  if (found.state === "foreign") return "foreign";
  return found.state === "ours" ? { version: found.health.version } : null;
}

// --- hooks and MCP ---------------------------------------------------------------------------

/**
 * Whether Codex trusts our hooks in `hooksFile` (`$CODEX_HOME/hooks.json` or the project's
 * `.codex/hooks.json`; it skips an untrusted hook silently, and a project's file in a project the
 * user did not trust), and has our MCP server; null when that file holds none of our hooks.
 */
function checkCodexTrust(
  paths: InstallPaths,
  where: { hooksFile: string; projectDir: string },
  options: { known: readonly string[]; tilde: (p: string) => string },
): DoctorCheck | null {
  const { known, tilde } = options;
  const project = where.hooksFile === paths.codexProjectHooks;
  const name = project ? "codex project hook trust" : "codex hook trust";
  let hooks: JsonObject | undefined;
  let config: string;
  try {
    hooks = readJsonFile(where.hooksFile).doc;
    config = readTextOrNull(paths.codexConfig) ?? "";
  } catch (error) {
    return {
      name,
      status: "fail",
      message: (error as Error).message.split("\n")[0],
      fix: "fix the file",
    };
  }
  if (hooks === undefined) return null;
  const ours = codexTrust(hooks, where.hooksFile, (c) => isOurCommand(c, known));
  if (ours.length === 0) return null;
  const untrusted = ours.filter((t) => !trustedIn(config, t));
  const mcp = config.includes(`[mcp_servers.${MCP_SERVER_NAME}]`);
  if (project && !projectTrustedIn(config, where.projectDir)) {
    return {
      name,
      status: "warn",
      message: `${tilde(where.hooksFile)}: Codex reads a project's hooks only in a project you ` +
        `trusted, and ${tilde(paths.codexConfig)} does not trust ${where.projectDir}`,
      fix: "trust the project when Codex asks (or `kiro-learn install --scope user`)",
    };
  }
  if (untrusted.length === 0 && mcp) {
    return {
      name,
      status: "ok",
      message: `${ours.length} hook(s) trusted in ${tilde(paths.codexConfig)}`,
    };
  }
  const missing = [
    ...untrusted.map((t) => `no trust for ${t.key.split(":").slice(-3).join(":")}`),
    ...(mcp ? [] : [`no [mcp_servers.${MCP_SERVER_NAME}]`]),
  ];
  return {
    name,
    status: "warn",
    message: `${tilde(paths.codexConfig)}: ${missing.join(", ")}: Codex skips an untrusted hook ` +
      "without a word",
    fix: "kiro-learn install (writes the trust of the hooks it writes)",
  };
}

type Source = DoctorSource;

/** Collects what the hook and MCP config files hold, and checks the commands they run. */
class Found {
  constructor(
    private readonly known: readonly string[],
    private readonly pathEnv: string,
    private readonly tilde: (p: string) => string,
    private readonly home: string,
  ) {}

  /**
   * The check of one surface over its config files. With `alternatives`, any one source covering
   * its own events is enough (Kiro reads either format's file); otherwise every expected event
   * must be covered by some file (Claude Code merges its user and project settings).
   */
  surface(
    label: string,
    sources: Source[],
    options: { alternatives?: boolean; readsBoth?: boolean } = {},
  ): { check: DoctorCheck; missing: boolean } {
    const name = `hooks ${label}`;
    const problems: string[] = [];
    const where: string[] = [];
    const covered = new Set<string>();
    const expected = new Set<string>();
    const commands: string[] = [];
    let perSourceComplete = false;
    for (const [kind, path, events] of sources) {
      if (!options.alternatives) { for (const e of events) expected.add(e); }
      const doc = this.read(path, problems);
      if (!doc) continue;
      const ours = ourHookCommands(kind, doc, this.known);
      if (ours.size === 0) continue;
      where.push(this.tilde(path));
      for (const [event, list] of ours) {
        covered.add(event);
        commands.push(...list);
      }
      if (events.every((e) => ours.has(e))) perSourceComplete = true;
      if (options.alternatives) { for (const e of events) expected.add(e); }
    }
    if (problems.length > 0) {
      return {
        check: { name, status: "fail", message: problems.join("; "), fix: "fix the file" },
        missing: false,
      };
    }
    if (where.length === 0) {
      return {
        check: {
          name,
          status: "warn",
          message: `no kiro-learn hooks found, so ${label} sessions are not captured`,
          fix: "kiro-learn install",
        },
        missing: true,
      };
    }
    const broken = this.brokenCommands(commands);
    if (broken.length > 0) {
      return {
        check: {
          name,
          status: "fail",
          message: `hooks in ${where.join(", ")} run missing files: ${broken.join(", ")}`,
          fix: "kiro-learn install (rewrites the hooks with the current shim paths)",
        },
        missing: false,
      };
    }
    if (label === "Kiro CLI" && where.length > 1 && options.readsBoth) {
      return {
        check: {
          name,
          status: "warn",
          message: `hooks in both formats (${where.join(", ")}): events may be captured twice`,
          fix: "kiro-learn install (keeps one format; --kiro-format v2|v3 to choose)",
        },
        missing: false,
      };
    }
    const missing = options.alternatives
      ? (perSourceComplete ? [] : [...expected].filter((e) => !covered.has(e)))
      : [...expected].filter((e) => !covered.has(e));
    if (missing.length > 0) {
      return {
        check: {
          name,
          status: "warn",
          message: `in ${where.join(", ")}, but not for ${missing.join(", ")}`,
          fix: "kiro-learn install",
        },
        missing: false,
      };
    }
    // An event an older version hooked and this one does not (Claude Code's SessionEnd and tool
    // events): its hook still fires, and costs the agent a firing for nothing until a reinstall
    // takes it out.
    const stale = [...covered].filter((e) => !expected.has(e));
    if (stale.length > 0) {
      return {
        check: {
          name,
          status: "warn",
          message: `in ${where.join(", ")}, also for ${stale.join(", ")}, which this version ` +
            "no longer hooks",
          fix: "kiro-learn install (takes those hooks out)",
        },
        missing: false,
      };
    }
    return { check: { name, status: "ok", message: `in ${where.join(", ")}` }, missing: false };
  }

  /**
   * The check of the MCP server registrations found in `paths`; an HTTP registration must point
   * at `options.url`, where the collector listens under the current settings.
   */
  mcp(paths: string[], options: { url: string }): DoctorCheck {
    const name = "mcp server";
    const problems: string[] = [];
    const where: string[] = [];
    const broken: string[] = [];
    const stale: string[] = [];
    for (const path of paths) {
      const doc = this.read(path, problems);
      const servers = doc && isPlainObject(doc.mcpServers) ? doc.mcpServers : undefined;
      const entry = servers?.[MCP_SERVER_NAME];
      if (!isPlainObject(entry)) continue;
      if (typeof entry.headersHelper === "string") {
        // Over HTTP: the collector serves it; the helper is what runs on this machine.
        where.push(`${this.tilde(path)} (HTTP)`);
        broken.push(...this.missingFiles(["sh", "-c", entry.headersHelper]));
        // A port changed in settings after install leaves the agent calling the old one.
        if (entry.url !== options.url) stale.push(`${this.tilde(path)} points at ${entry.url}`);
        continue;
      }
      if (typeof entry.command !== "string") continue;
      where.push(this.tilde(path));
      const args = Array.isArray(entry.args) ? entry.args.filter((a) => typeof a === "string") : [];
      broken.push(...this.missingFiles([entry.command, ...args]));
    }
    if (problems.length > 0) {
      return { name, status: "fail", message: problems.join("; "), fix: "fix the file" };
    }
    if (where.length === 0) {
      return {
        name,
        status: "warn",
        message: `${MCP_SERVER_NAME} is not registered; agents cannot search memory explicitly`,
        fix: "kiro-learn install",
      };
    }
    if (broken.length > 0) {
      return {
        name,
        status: "fail",
        message: `${MCP_SERVER_NAME} in ${where.join(", ")} runs missing files: ${
          [...new Set(broken)].join(", ")
        }`,
        fix: "kiro-learn install",
      };
    }
    if (stale.length > 0) {
      return {
        name,
        status: "fail",
        message: `${MCP_SERVER_NAME}: ${
          stale.join(", ")
        }, but the collector listens at ${options.url} (its settings changed since install)`,
        fix: "kiro-learn install",
      };
    }
    return { name, status: "ok", message: `${MCP_SERVER_NAME} in ${where.join(", ")}` };
  }

  private read(path: string, problems: string[]): JsonObject | undefined {
    try {
      return readJsonFile(path).doc;
    } catch (error) {
      problems.push((error as Error).message.split("\n")[0]);
      return undefined;
    }
  }

  private brokenCommands(commands: string[]): string[] {
    const out = new Set<string>();
    for (const command of new Set(commands)) {
      for (const missing of this.missingFiles(hookArgv(command))) out.add(missing);
    }
    return [...out];
  }

  /**
   * The program (on PATH or by path) and every absolute-path argument that does not exist. A
   * `$HOME/…` program is a launcher named the same on every machine: it is looked for in this
   * home. `sh -c 'exec …'` (the MCP entry) is checked for what it execs.
   */
  private missingFiles(argv: string[]): string[] {
    if (argv.length === 0) return ["(empty command)"];
    if (argv.length === 3 && argv[0] === "sh" && argv[1] === "-c") {
      return this.missingFiles(splitCommand(argv[2].replace(/^exec\s+/, "")));
    }
    const out: string[] = [];
    const [named, ...args] = argv;
    const program = named.startsWith("$HOME/") ? this.home + named.slice(5) : named;
    if (resolveCommand(program, { PATH: this.pathEnv }) === null) out.push(program);
    for (const arg of args) {
      const path = arg.startsWith("file://") ? decodeURIComponent(new URL(arg).pathname) : arg;
      if (!isAbsolute(path)) continue;
      try {
        Deno.statSync(path);
      } catch {
        out.push(path);
      }
    }
    return out;
  }
}

// --- ACP agent, spool ------------------------------------------------------------------------

/**
 * Which extractor the collector uses, decided as it decides it (`extraction.strategy`, whether
 * the agent command is there, a bare name on PATH or an absolute path, and the daily cap).
 */
function checkExtractor(settings: SettingsValues, pathEnv: string): DoctorCheck {
  const name = "extractor";
  const x = settings.extraction;
  const command = quoteArgv(x.agentCommand);
  if (x.strategy === "heuristic") {
    return { name, status: "ok", message: "heuristic (extraction.strategy is heuristic)" };
  }
  const found = resolveCommand(x.agentCommand[0], { PATH: pathEnv }) !== null;
  if (!found && x.strategy === "acp") {
    return {
      name,
      status: "fail",
      message: `LLM over ACP (extraction.strategy is acp), but ${
        x.agentCommand[0]
      } is not found: every extraction run fails and events stay queued`,
      fix: "install the agent, or set extraction.agentCommand to its full path, then restart " +
        "the collector (kiro-learn stop; kiro-learn start)",
    };
  }
  if (!found) {
    return {
      name,
      status: "warn",
      message: `heuristic: ${x.agentCommand[0]} is not found (extraction.strategy is auto)`,
      fix: "install kiro-cli, or set extraction.agentCommand to another ACP agent (a full " +
        "path, or a name on PATH)",
    };
  }
  if (x.dailyBudgetChars === 0) {
    return {
      name,
      status: "ok",
      message: `heuristic: extraction.dailyBudgetChars is 0 (the LLM is never called)`,
    };
  }
  return { name, status: "ok", message: `LLM over ACP: ${command} (extraction.${x.strategy})` };
}

function checkAcpAgents(
  settings: SettingsValues,
  pathEnv: string,
  agentsDir: string,
  tilde: (p: string) => string,
): DoctorCheck {
  const name = "acp agent";
  const commands = [
    settings.extraction.agentCommand,
    settings.reconciliation.agentCommand,
    settings.compaction.agentCommand,
  ];
  const strategy = settings.extraction.strategy;
  const uses: [string, string | null][] = [
    [
      "extraction.agentCommand",
      strategy === "auto"
        ? "extraction uses the heuristic extractor"
        : strategy === "acp"
        ? "every extraction run fails"
        : null,
    ],
    ["reconciliation.agentCommand", "new memories are not reconciled by the judge"],
    ["compaction.agentCommand", "a long queue is compacted by a digest, not the compactor"],
  ];
  const missing = commands.flatMap((c, i) => {
    const [key, consequence] = uses[i];
    if (consequence === null || resolveCommand(c[0], { PATH: pathEnv }) !== null) return [];
    return [`${c[0]} (${key}): ${consequence}`];
  });
  if (missing.length > 0) {
    return {
      name,
      status: "warn",
      message: `not found: ${missing.join("; ")}`,
      fix: "install kiro-cli, or set these commands to another ACP agent (a full path, or a " +
        "name on PATH), then restart the collector",
    };
  }
  // kiro-cli needs our agent files to exist; another ACP agent brings its own configuration.
  const absent = commands
    .filter((c) => /(^|\/)kiro-cli$/.test(c[0]) && c.indexOf("--agent") > 0)
    .map((c) => c[c.indexOf("--agent") + 1])
    .filter((agent) =>
      agent !== undefined && fileExists(join(agentsDir, `${agent}.json`)) === false
    );
  if (absent.length > 0) {
    return {
      name,
      status: "warn",
      message: `${[...new Set(absent)].join(", ")} missing from ${tilde(agentsDir)}`,
      fix: "kiro-learn install",
    };
  }
  return { name, status: "ok", message: commands.map((c) => quoteArgv(c)).join("; ") };
}

// The same count as `status` (core/spool's spoolStatus): spooled events only. The spool dir
// also holds the shims' transcript read marks and down notices, which are not waiting for anyone.
function checkSpool(dir: string, maxBytes: number): DoctorCheck {
  const name = "spool";
  const spool = spoolStatus(dir, { maxBytes });
  const size = `${spool.files} event(s), ${formatBytes(spool.bytes)} of ${formatBytes(maxBytes)}`;
  const fix = "kiro-learn start (the collector drains the spool)";
  if (spoolFilling(spool)) {
    const dropped = spool.dropped > 0
      ? `; ${spool.dropped} event(s) dropped because it was full (${DROPPED_LOG})`
      : "";
    return { name, status: "fail", message: `filling up (${size})${dropped}`, fix };
  }
  if (spool.files === 0) return { name, status: "ok", message: "empty" };
  return { name, status: "warn", message: `${size} waiting for the collector`, fix };
}

function knownCommands(commands: InstallCommands): string[] {
  try {
    return [
      quoteArgv(commands.shim("kiro-cli")),
      quoteArgv(commands.shim("claude-code")),
      quoteArgv(commands.shim("kiro-ide")),
      quoteArgv(commands.shim("gemini-cli")),
      quoteArgv(commands.shim("copilot-cli")),
    ];
  } catch {
    return [];
  }
}

function fileExists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

function octal(mode: number): string {
  return mode.toString(8).padStart(4, "0");
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1_048_576) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1_048_576).toFixed(1)} MiB`;
}
