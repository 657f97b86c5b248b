/**
 * Replaying a recorded session through the real shims, one child process per hook firing,
 * exactly as an agent would run them (same entry, same permissions, stdin or `USER_PROMPT`).
 *
 * The file is NDJSON, one hook firing per line:
 * `{"surface": "kiro-cli" | "kiro-ide" | "claude-code" | "codex" | "gemini-cli" | "copilot-cli",
 *   "hook": "<name>",
 *   "payload": <JSON>,
 *   "env"?: {"NAME": "value"}}`.
 * `${PROJECT}` anywhere in a payload string or env value is replaced by the replay's cwd.
 * Routing: `claude-code`, `codex`, `gemini-cli` and `kiro-cli` payloads go to stdin of their entry; a `kiro-ide` line
 * whose payload has a `hook_event_name` is IDE 1.x (stdin of the `kiro-cli` entry), any
 * other `kiro-ide` line is IDE 0.x: the hook as argument and the payload (a JSON object is
 * serialised) in `USER_PROMPT`. A `copilot-cli` line gets its hook as argument and the payload
 * on stdin.
 *
 * As a command (the collector may not import shims, so `kiro-learn replay` runs this):
 * `deno run -A shims/replay.ts <file.ndjson> [--cwd=<project dir>]` prints one line per hook
 * firing (and any context the shim printed) and exits 1 if any line failed.
 *
 * @module
 */
import { loadSettings, type Settings } from "@kiro-learn/core/settings";
import {
  SHIM_ENTRIES,
  SHIM_ENV_VARS,
  shimCommand,
  type ShimSurface,
} from "@kiro-learn/core/launch";

/** One line of a replay file. */
export interface ReplayLine {
  /** Agent that fired the hook. */
  surface: ShimSurface;
  /** Hook name (`userPromptSubmit`, `PostToolUse`, `promptSubmit`...). */
  hook: string;
  /** The hook input. */
  payload: unknown;
  /** Extra environment for this firing. */
  env?: Record<string, string>;
}

/** What one line did. */
export interface ReplayResult {
  /** 1-based line number in the file. */
  line: number;
  /** The line's surface ('' when the line could not be parsed). */
  surface: string;
  /** The line's hook. */
  hook: string;
  /** Exit code of the shim (-1: the line was invalid and nothing ran). */
  code: number;
  /** What the shim printed (the injected context). */
  stdout: string;
  /** Its diagnostics, or why the line was skipped. */
  stderr: string;
  /** Wall time of the shim process. */
  ms: number;
}

/** Options for {@linkcode replay}. */
export interface ReplayOptions {
  /** The project directory the session runs in (and `${PROJECT}`'s value). */
  cwd: string;
  /** Environment given to every shim on top of the inherited one (`KIRO_LEARN_HOME`...). */
  env?: Record<string, string>;
  /** Settings for the shim permissions (default: loaded with `env`). */
  settings?: Settings;
  /** Use compiled shims when present (default true). */
  preferCompiled?: boolean;
  /** Called after each line, for progress output. */
  onResult?: (result: ReplayResult) => void;
}

const SURFACES = new Set<string>(Object.keys(SHIM_ENTRIES));
const decoder = new TextDecoder();

/** Runs every line of `file` through its real shim, in order; returns one result per line. */
export async function replay(file: string, options: ReplayOptions): Promise<ReplayResult[]> {
  const text = await Deno.readTextFile(file);
  const env = { ...options.env };
  const settings = options.settings ?? loadSettings({ env: { ...inheritedEnv(), ...env } });
  const results: ReplayResult[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() === "") continue;
    const result = await replayLine(lines[i], i + 1, { ...options, env, settings });
    results.push(result);
    options.onResult?.(result);
  }
  return results;
}

async function replayLine(
  raw: string,
  lineNumber: number,
  options: ReplayOptions & { settings: Settings; env: Record<string, string> },
): Promise<ReplayResult> {
  const parsed = parseLine(raw, options.cwd);
  if (typeof parsed === "string") {
    return { line: lineNumber, surface: "", hook: "", code: -1, stdout: "", stderr: parsed, ms: 0 };
  }
  const { surface, hook, payload } = parsed;
  const lineEnv = { ...options.env, ...parsed.env };
  const ide0 = surface === "kiro-ide" && !hasHookName(payload);
  const entry: ShimSurface = surface === "kiro-ide" && !ide0 ? "kiro-cli" : surface;
  const argv = shimCommand(entry, {
    settings: options.settings,
    // Copilot CLI's payloads do not name their event: its hook command does.
    args: ide0 || surface === "copilot-cli"
      ? [hook]
      : surface === "kiro-ide"
      ? ["--surface=kiro-ide"]
      : [],
    projectRoots: [options.cwd],
    preferCompiled: options.preferCompiled,
  });
  let stdinText: string | null = null;
  if (ide0) {
    lineEnv.USER_PROMPT = typeof payload === "string" ? payload : JSON.stringify(payload ?? "");
  } else {
    const body = payload !== null && typeof payload === "object" && !Array.isArray(payload)
      ? { hook_event_name: hook, ...payload as Record<string, unknown> }
      : payload;
    stdinText = typeof body === "string" ? body : JSON.stringify(body);
  }
  const started = performance.now();
  const child = new Deno.Command(argv[0], {
    args: argv.slice(1),
    cwd: options.cwd,
    env: lineEnv,
    stdin: stdinText === null ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdinText !== null) {
    const writer = child.stdin.getWriter();
    try {
      await writer.write(new TextEncoder().encode(stdinText));
      await writer.close();
    } catch {
      // The shim may exit before reading everything; its result still counts.
    }
  }
  const output = await child.output();
  return {
    line: lineNumber,
    surface,
    hook,
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
    ms: Math.round(performance.now() - started),
  };
}

/** Parses and substitutes one line; a string is the reason it is invalid. */
function parseLine(raw: string, project: string): ReplayLine | string {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return "line is not valid JSON";
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return "line is not a JSON object";
  }
  const line = substitute(value, project) as Record<string, unknown>;
  if (typeof line.surface !== "string" || !SURFACES.has(line.surface)) {
    return `surface must be one of ${[...SURFACES].join(", ")}`;
  }
  if (typeof line.hook !== "string" || line.hook === "") return "hook must be a non-empty string";
  const env: Record<string, string> = {};
  if (line.env !== undefined) {
    if (line.env === null || typeof line.env !== "object" || Array.isArray(line.env)) {
      return "env must be an object of strings";
    }
    for (const [key, val] of Object.entries(line.env)) {
      if (typeof val !== "string") return "env must be an object of strings";
      env[key] = val;
    }
  }
  return {
    surface: line.surface as ShimSurface,
    hook: line.hook,
    payload: intoProject(line.payload, project),
    env,
  };
}

/**
 * The payload as if the hook fired in `project`: a recorded session names the directory it was
 * recorded in (`cwd`, and each deferred Kiro tool event's `cwd`), and the replay says it files
 * its events under the replay's project.
 */
export function intoProject(payload: unknown, project: string): unknown {
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) return payload;
  const out: Record<string, unknown> = { ...payload };
  if (typeof out.cwd === "string") out.cwd = project;
  if (Array.isArray(out.hook_events)) {
    out.hook_events = out.hook_events.map((e) =>
      e !== null && typeof e === "object" && !Array.isArray(e) && typeof e.cwd === "string"
        ? { ...e, cwd: project }
        : e
    );
  }
  return out;
}

function substitute(value: unknown, project: string): unknown {
  if (typeof value === "string") return value.replaceAll("${PROJECT}", project);
  if (Array.isArray(value)) return value.map((item) => substitute(item, project));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, substitute(item, project)]),
    );
  }
  return value;
}

function hasHookName(payload: unknown): boolean {
  return payload !== null && typeof payload === "object" && !Array.isArray(payload) &&
    typeof (payload as Record<string, unknown>).hook_event_name === "string";
}

function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of SHIM_ENV_VARS) {
    try {
      const value = Deno.env.get(key);
      if (value !== undefined) env[key] = value;
    } catch {
      // Not permitted: the settings fall back to their defaults.
    }
  }
  return env;
}

/** One printable line per result (context indented below it). */
export function formatResult(result: ReplayResult): string {
  const head = `line ${result.line}: ${result.surface || "-"} ${result.hook || "-"} ` +
    (result.code === -1 ? `skipped (${result.stderr})` : `exit ${result.code} in ${result.ms} ms`);
  const context = result.stdout.trim();
  return context === "" ? head : `${head}\n${context.replace(/^/gm, "    ")}`;
}

if (import.meta.main) {
  const file = Deno.args.find((a) => !a.startsWith("--"));
  if (file === undefined) {
    console.error("usage: replay.ts <session.ndjson> [--cwd=<project dir>]");
    Deno.exit(2);
  }
  const cwd = Deno.args.find((a) => a.startsWith("--cwd="))?.slice(6) ?? Deno.cwd();
  const results = await replay(file, { cwd, onResult: (r) => console.log(formatResult(r)) });
  Deno.exit(results.every((r) => r.code === 0) ? 0 : 1);
}
