/**
 * Test helpers for the shims: fixtures, throwaway projects and data dirs, and running a shim
 * as a real child process with its real permissions.
 *
 * @module
 */
import type { Event, EventBody } from "@kiro-learn/core/schemas";
import { loadSettings, type Settings } from "@kiro-learn/core/settings";
import { shimCommand, type ShimSurface } from "@kiro-learn/core/launch";

/** The folder holding the fixtures. */
export const TESTDATA: string = new URL("./testdata/", import.meta.url).pathname;

/** Actor the tests give every shim (so namespaces are predictable). */
export const TEST_ACTOR = "tester";

/** A fixture's text with `${PROJECT}` replaced. */
export function fixtureText(name: string, project = "/tmp/project"): string {
  return Deno.readTextFileSync(`${TESTDATA}${name}`).replaceAll("${PROJECT}", project);
}

/** A JSON fixture, parsed, with `${PROJECT}` replaced. */
export function fixture<T = Record<string, unknown>>(name: string, project = "/tmp/project"): T {
  return JSON.parse(fixtureText(name, project)) as T;
}

/** A hook payload whose tool response is `bytes` long (plus a short tail): over the cap. */
export function hugeToolPayload(project: string, bytes = 1_200_000): Record<string, unknown> {
  const line = "2024-02-29T00:00:00.000Z parsed ok — ünïcödé line from a very chatty test run\n";
  const stdout = line.repeat(Math.ceil(bytes / line.length));
  return {
    hook_event_name: "postToolUse",
    cwd: project,
    tool_name: "execute_bash",
    tool_input: { command: "deno test --trace-leaks" },
    tool_response: { success: true, result: [{ exit_status: "0", stdout, stderr: "" }] },
  };
}

/** Makes a project folder (a `deno.json` marker, `src/`, `test/`) in a temp dir. */
export async function makeProject(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-project-" });
  const real = await Deno.realPath(dir);
  await Deno.writeTextFile(`${real}/deno.json`, "{}\n");
  await Deno.mkdir(`${real}/src`);
  await Deno.mkdir(`${real}/test`);
  return real;
}

/** A data dir with settings.json (and a token) but no collector: for down/slow/full cases. */
export async function makeDataDir(
  settings: Record<string, unknown>,
  options: { token?: string | null } = {},
): Promise<{ dir: string; settings: Settings; env: Record<string, string> }> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "kiro-learn-data-" }));
  await Deno.chmod(dir, 0o700);
  await Deno.writeTextFile(`${dir}/settings.json`, JSON.stringify(settings));
  const token = options.token === undefined ? "test-token-0123456789" : options.token;
  if (token !== null) await Deno.writeTextFile(`${dir}/token`, token + "\n");
  const env = { KIRO_LEARN_HOME: dir };
  return { dir, settings: loadSettings({ env }), env };
}

/** A data dir ({@linkcode makeDataDir}) and a project folder, both removed when disposed. */
export interface ShimSandbox extends AsyncDisposable {
  /** The data dir, its settings and the environment naming it. */
  data: Awaited<ReturnType<typeof makeDataDir>>;
  /** The project folder ({@linkcode makeProject}). */
  project: string;
}

/** Makes a {@linkcode ShimSandbox} with `settings` (no collector runs for it). */
export async function shimSandbox(settings: Record<string, unknown>): Promise<ShimSandbox> {
  const data = await makeDataDir(settings);
  const project = await makeProject();
  return {
    data,
    project,
    async [Symbol.asyncDispose]() {
      await Deno.remove(data.dir, { recursive: true });
      await Deno.remove(project, { recursive: true });
    },
  };
}

/** A collector that takes connections and never answers, on a loopback port. */
export interface HungCollector extends AsyncDisposable {
  /** Its port. */
  port: number;
  /** The connections it took (and holds open until disposed). */
  held: Deno.Conn[];
}

/** Starts a {@linkcode HungCollector}; disposing closes it and every connection it took. */
export function hungCollector(): HungCollector {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) held.push(conn);
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    held,
    async [Symbol.asyncDispose]() {
      listener.close();
      for (const conn of held) conn.close();
      await accepting.catch(() => {});
    },
  };
}

/** How a shim run ended. */
export interface ShimRun {
  /** Exit code. */
  code: number;
  /** Everything printed on stdout. */
  stdout: string;
  /** Everything printed on stderr. */
  stderr: string;
  /** Wall time (for benchmarks; tests assert on outcomes, not on this). */
  ms: number;
  /** True when `killAfterMs` ran out and the child was killed: the shim hung. */
  killed: boolean;
}

/** Options for {@linkcode runShimProcess}. */
export interface RunShimOptions {
  /** Settings of the data dir the shim uses (for its permissions). */
  settings: Settings;
  /** Environment on top of the inherited one (KIRO_LEARN_HOME...). */
  env: Record<string, string>;
  /** Working directory, and a read root. */
  cwd: string;
  /** stdin content; `"open"` keeps stdin piped and never closes it; undefined → /dev/null. */
  stdin?: string | Uint8Array | "open";
  /** Shim arguments. */
  args?: string[];
  /**
   * Kill the child after this long (default 30 s): a generous hard limit that only turns a hang
   * into a failure (`killed`, and a non-zero exit code), never a shim success.
   */
  killAfterMs?: number;
}

/** Runs a shim entry as a real process with its real flags. */
export async function runShimProcess(
  surface: ShimSurface,
  options: RunShimOptions,
): Promise<ShimRun> {
  const argv = shimCommand(surface, {
    settings: options.settings,
    args: options.args,
    projectRoots: [options.cwd],
    preferCompiled: false,
  });
  const started = performance.now();
  const child = new Deno.Command(argv[0], {
    args: argv.slice(1),
    cwd: options.cwd,
    env: { USER: TEST_ACTOR, ...options.env },
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let killed = false;
  const timer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
      killed = true;
    } catch {
      // Already gone.
    }
  }, options.killAfterMs ?? 30_000);
  let writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  if (options.stdin !== undefined) {
    writer = child.stdin.getWriter();
    if (options.stdin !== "open") {
      const bytes = typeof options.stdin === "string"
        ? new TextEncoder().encode(options.stdin)
        : options.stdin;
      // Written concurrently with reading the output, so a large payload cannot deadlock.
      writer.write(bytes).then(() => writer!.close()).catch(() => {});
    }
  }
  const [status, stdout, stderr] = await Promise.all([
    child.status,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  clearTimeout(timer);
  if (options.stdin === "open") await writer?.close().catch(() => {});
  return {
    code: status.code,
    stdout,
    stderr,
    ms: Math.round(performance.now() - started),
    killed,
  };
}

/** Every stored event (newest first), optionally only one namespace's. */
export async function storedEvents(
  daemon: { fetch(path: string, init?: RequestInit): Promise<Response> },
  namespace?: string,
): Promise<Event[]> {
  const query = namespace ? `&namespace=${encodeURIComponent(namespace)}` : "";
  const res = await daemon.fetch(`/v1/events?limit=200${query}`);
  if (!res.ok) throw new Error(`GET /v1/events: ${res.status} ${await res.text()}`);
  return (await res.json()).items as Event[];
}

/** The files waiting in a spool dir. */
export function spoolFiles(spoolDir: string): string[] {
  try {
    return [...Deno.readDirSync(spoolDir)]
      .filter((e) => e.isFile && e.name.endsWith(".json") && !e.name.startsWith("."))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

/** Loosely typed JSON, for digging into stored bodies in assertions. */
// deno-lint-ignore no-explicit-any
export type LooseJson = any;

/** The `data` of a json body (tests only: throws on any other body type). */
export function dataOf(body: EventBody): LooseJson {
  if (body.type !== "json") throw new Error(`expected a json body, got ${body.type}`);
  return body.data;
}

/**
 * A hook's stdout parsed as the one JSON object an agent that reads JSON wants (Gemini CLI,
 * Copilot CLI); throws when it is anything else.
 */
export function jsonObjectOutput(stdout: string): Record<string, unknown> {
  const value = JSON.parse(stdout);
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new Error(`hook output is not one JSON object: ${stdout}`);
  }
  return value;
}

/** The `content` of a text body (tests only: throws on any other body type). */
export function textOf(body: EventBody): string {
  if (body.type !== "text") throw new Error(`expected a text body, got ${body.type}`);
  return body.content;
}
