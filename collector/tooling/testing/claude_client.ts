/**
 * Test helper: the real Claude Code client (the version `prepare.ts` pins and installs), run
 * offline in print mode (`claude -p`) against a scripted model (`scripted_model.ts`), in a
 * sandbox of its own: a temporary HOME, a kiro-learn data dir in it with a free collector port,
 * and project folders. kiro-learn is installed and started there with its own CLI, as a user
 * would.
 *
 * @module
 */
import { ROUTES } from "@kiro-learn/core/api/wire";
import { resolveProject } from "@kiro-learn/core/project";
import { CLAUDE_CODE_VERSION, claudeCodeBinary } from "./prepare.ts";
import { freePort } from "./daemon.ts";
import { waitFor } from "@kiro-learn/core/testing";
import { type CodexRun, requireCodex, runCodex } from "./codex_client.ts";

/** The Claude Code version these helpers run (pinned in prepare.ts). */
export { CLAUDE_CODE_VERSION };

const ROOT = new URL("../../../", import.meta.url).pathname;

/** The hang guard of one `claude -p` run: far above its few seconds, it only turns a hang into a failure. */
export const CLAUDE_RUN_LIMIT_MS = 120_000;

/**
 * The pinned `claude` executable; throws, saying how to install it, when it is missing (a test
 * that needs the client fails without it, it never skips).
 */
export function requireClaudeCode(): string {
  const binary = claudeCodeBinary();
  try {
    if (Deno.statSync(binary).isFile) return binary;
  } catch {
    // Reported below.
  }
  throw new Error(
    `Claude Code ${CLAUDE_CODE_VERSION} is not installed (no ${binary}): run \`deno task test\`, ` +
      "whose first step (collector/tooling/testing/prepare.ts) installs it with npm, or run that " +
      "script alone, then run this test again",
  );
}

/** What one `claude -p` run did. */
export interface ClaudeRun {
  /** Exit code. */
  code: number;
  /** Standard output (the `--output-format json` result). */
  stdout: string;
  /** Standard error. */
  stderr: string;
  /** The `result` text of the JSON output, or null when there was none. */
  result: string | null;
}

/** An event as the collector's `GET /v1/events` lists it (the fields the tests read). */
export interface StoredEvent {
  /** `prompt`, `tool_use`, `session_summary`, … */
  kind: string;
  /** The project's namespace. */
  namespace: string;
  /** The agent's session. */
  session_id: string;
  /** What was recorded. */
  body: { content?: string; data?: Record<string, unknown> };
  /** Which agent, in which folder. */
  source: { surface: string; project_path?: string };
}

/** A temporary HOME with kiro-learn's data dir in it, and helpers to act in it. */
export interface AgentSandbox {
  /** The temporary folder holding everything. */
  root: string;
  /** The HOME the client and kiro-learn see. */
  home: string;
  /** The kiro-learn data dir (`<home>/.kiro-learn`). */
  dataDir: string;
  /** The collector port written into the data dir's settings.json. */
  port: number;
  /** The actor (USER) the hooks record under. */
  actor: string;
  /** Environment for every process run in the sandbox (the client, the CLI, hence the hooks). */
  env: Record<string, string>;
  /**
   * Creates a project folder named `name` whose remote decides its id; returns its path. A
   * `.git/config` alone, or with `git: true` a repository `git init` made.
   */
  project(name: string, options?: { git?: boolean }): Promise<string>;
  /** Runs `deno task kiro-learn <args>` from `cwd`. */
  kiroLearn(args: string[], cwd: string): Promise<Deno.CommandOutput>;
  /**
   * Runs `kiro-learn install <args>` then `start` from `cwd`; throws with their output when one
   * fails. Returns install's output.
   */
  installAndStart(cwd: string, args?: string[]): Promise<string>;
  /** A request to the sandbox's collector, with its token (once started) and a JSON body type. */
  api(path: string, init?: RequestInit): Promise<Response>;
  /** The events the collector holds in `namespace` (the latest 200). */
  eventsIn(namespace: string): Promise<StoredEvent[]>;
  /** The namespace the hooks file a session in `cwd` under (the sandbox's actor and HOME). */
  namespaceOf(cwd: string): string;
  /** Command lines of the sandbox's live processes but the collector. */
  strays(): string[];
  /** Waits until nothing but the collector runs in the sandbox; throws naming what is left. */
  settled(what: string): Promise<void>;
  /** Runs `stop` from `cwd`, then waits until no process of the sandbox is left. */
  stopAll(cwd: string): Promise<void>;
  /** Stops the collector if it runs and removes the sandbox. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** An {@linkcode AgentSandbox} that runs the real Claude Code client and the real Codex CLI. */
export interface ClaudeSandbox extends AgentSandbox {
  /** Runs `claude -p <prompt>` in `cwd` against `modelUrl` (`allowedTools` adds to the default). */
  claude(
    prompt: string,
    options: { cwd: string; modelUrl: string; allowedTools?: string[]; args?: string[] },
  ): Promise<ClaudeRun>;
  /** Runs `codex exec <prompt>` in `cwd` against the Responses model at `modelUrl`. */
  codex(prompt: string, options: { cwd: string; modelUrl: string }): Promise<CodexRun>;
}

/**
 * The settings the sandbox starts with: quiet (no LLM agent, no model, no compaction), and
 * patient hooks, so a machine loaded by the parallel test run does not turn a slow retrieval into
 * a missing memory (the hooks stay within Claude Code's 10 s hook timeout).
 */
const QUIET_SETTINGS = {
  shim: { timeoutMs: 3000 },
  retrieval: { budgetMs: 2500 },
  embedding: { backend: "off" },
  extraction: { strategy: "heuristic", idleMs: 300_000, sizeThresholdBytes: 16_777_216 },
  compaction: { enabled: false },
  reconciliation: { enabled: false },
};

/** Output of a finished command as text. */
export function outputText(output: Deno.CommandOutput): string {
  const decoder = new TextDecoder();
  return decoder.decode(output.stdout) + decoder.decode(output.stderr);
}

/**
 * Makes a sandbox for the client. Nothing is installed yet: run `install` and `start` through
 * {@linkcode ClaudeSandbox.kiroLearn} for a session with our hooks, or nothing for one without.
 */
export async function claudeSandbox(
  options: { actor?: string; settings?: Record<string, unknown> } = {},
): Promise<ClaudeSandbox> {
  const binary = requireClaudeCode();
  const clientDirs = clientTmpDirsOf(Deno.uid());
  const hadClientDirs = clientDirs.map((dir) => {
    try {
      return Deno.statSync(dir).isDirectory;
    } catch {
      return false;
    }
  });
  const box = await agentSandbox({ ...options, prefix: "kiro-learn-claude-" });
  return {
    ...box,
    claude: (prompt, { cwd, modelUrl, allowedTools, args }) =>
      runClaude(binary, prompt, { cwd, env: box.env, modelUrl, allowedTools, args }),
    codex: (prompt, { cwd, modelUrl }) =>
      runCodex(requireCodex(), prompt, { cwd, env: box.env, modelUrl }),
    async [Symbol.asyncDispose]() {
      try {
        await box[Symbol.asyncDispose]();
      } finally {
        clientDirs.forEach((dir, i) => hadClientDirs[i] || removeEmptyDir(dir));
      }
    },
  };
}

/**
 * Makes a sandbox for any agent's client: a temporary HOME holding kiro-learn's data dir (quiet
 * settings, a free port), project folders on demand, and the `kiro-learn` CLI run there.
 */
export async function agentSandbox(
  options: { actor?: string; settings?: Record<string, unknown>; prefix: string },
): Promise<AgentSandbox> {
  const root = await Deno.makeTempDir({ prefix: options.prefix });
  const home = `${root}/home`;
  const dataDir = `${home}/.kiro-learn`;
  await Deno.mkdir(dataDir, { recursive: true, mode: 0o700 });
  await Deno.chmod(dataDir, 0o700);
  // The clients keep runtime files in the temp dir (Claude Code's `claude-<uid>` and `cc-socks`,
  // Codex's runtime folders): the sandbox's own, removed with it, never /tmp.
  const tmp = `${root}/tmp`;
  await Deno.mkdir(tmp, { mode: 0o700 });
  const port = freePort();
  // The port lives in settings.json, which install keeps and writes into the hooks' permissions.
  await Deno.writeTextFile(
    `${dataDir}/settings.json`,
    JSON.stringify(
      { ...QUIET_SETTINGS, ...options.settings, collector: { host: "127.0.0.1", port } },
      null,
      2,
    ),
  );
  const actor = options.actor ?? "e2e-tester";
  const env: Record<string, string> = {
    HOME: home,
    KIRO_LEARN_HOME: dataDir,
    USER: actor,
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    // The hooks run `deno run --cached-only`: a user's HOME holds Deno's cache, this one does not.
    DENO_DIR: await denoDir(),
    LANG: "C.UTF-8",
    TMPDIR: tmp,
  };
  const kiroLearn = (args: string[], cwd: string) =>
    new Deno.Command(Deno.execPath(), {
      args: ["task", "-q", "--config", `${ROOT}deno.json`, "kiro-learn", ...args],
      cwd,
      env,
      clearEnv: true,
      stdin: "null",
    }).output();
  const api = async (path: string, init: RequestInit = {}) => {
    const token = (await Deno.readTextFile(`${dataDir}/token`)).trim();
    return fetch(`http://127.0.0.1:${port}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    });
  };
  const strays = () =>
    processesWithEnv("HOME", home).filter((pid) => !isCollectorProcess(pid)).map(commandLine)
      .filter((c) => c !== "");
  return {
    root,
    home,
    dataDir,
    port,
    actor,
    env,
    async project(name, projectOptions = {}) {
      const dir = `${root}/work/${name}`;
      const remote = `git@git.example.com:team/${name}.git`;
      if (projectOptions.git) {
        await Deno.mkdir(dir, { recursive: true });
        for (const args of [["init", "-q"], ["remote", "add", "origin", remote]]) {
          const done = await new Deno.Command("git", { args, cwd: dir, stdin: "null" }).output();
          if (done.code !== 0) throw new Error(`git ${args[0]} failed: ${outputText(done)}`);
        }
        return dir;
      }
      await Deno.mkdir(`${dir}/.git`, { recursive: true });
      // Like a real clone: a remote decides the project id.
      await Deno.writeTextFile(`${dir}/.git/config`, `[remote "origin"]\n\turl = ${remote}\n`);
      return dir;
    },
    kiroLearn,
    async installAndStart(cwd, args = []) {
      let installed = "";
      for (const command of [["install", ...args], ["start"]]) {
        const done = await kiroLearn(command, cwd);
        if (done.code !== 0) {
          throw new Error(`kiro-learn ${command.join(" ")} failed: ${outputText(done)}`);
        }
        if (command[0] === "install") installed = outputText(done);
      }
      return installed;
    },
    api,
    async eventsIn(namespace) {
      const res = await api(`${ROUTES.events}?limit=200`);
      if (!res.ok) throw new Error(`GET ${ROUTES.events}: ${res.status} ${await res.text()}`);
      return ((await res.json()).items as StoredEvent[]).filter((e) => e.namespace === namespace);
    },
    namespaceOf: (cwd) => resolveProject(cwd, { actor, home }).namespace,
    strays,
    async settled(what) {
      await waitFor(
        () => Promise.resolve(strays().length === 0 ? true : undefined),
        { timeoutMs: 30_000, what },
      ).catch((error: Error) => {
        throw new Error(`${error.message}: ${JSON.stringify(strays())}`);
      });
    },
    async stopAll(cwd) {
      const stopped = await kiroLearn(["stop"], cwd);
      if (stopped.code !== 0) throw new Error(`kiro-learn stop failed: ${outputText(stopped)}`);
      await waitFor(
        () => Promise.resolve(processesWithEnv("HOME", home).length === 0 ? true : undefined),
        { timeoutMs: 30_000, what: "the collector to exit after stop" },
      );
    },
    async [Symbol.asyncDispose]() {
      try {
        await kiroLearn(["stop"], root);
      } finally {
        await Deno.remove(root, { recursive: true });
      }
    },
  };
}

/**
 * The folders the clients make in /tmp whatever TMPDIR says: Codex's for its daemon
 * (`/tmp/codex-daemon-<uid>`), and Claude Code's fallback socket folder (`/tmp/cc-socks-<uid>`,
 * taken when the socket's path under TMPDIR would pass 103 bytes, or for its default-folder
 * replies). A sandbox that saw one appear takes it away again, when it is empty.
 */
function clientTmpDirsOf(uid: number | null): string[] {
  return [`/tmp/codex-daemon-${uid ?? 0}`, `/tmp/cc-socks-${uid ?? 0}`];
}

function removeEmptyDir(path: string): void {
  try {
    Deno.removeSync(path);
  } catch {
    // Gone already, or not empty (another run of the client uses it): left alone.
  }
}

async function denoDir(): Promise<string> {
  const fromEnv = Deno.env.get("DENO_DIR");
  if (fromEnv) return fromEnv;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdin: "null",
    stderr: "null",
  }).output();
  return JSON.parse(new TextDecoder().decode(out.stdout)).denoDir;
}

/**
 * Runs the real client once in print mode: `claude -p <prompt> --output-format json`, the tools
 * a session needs allowed (as root, `--dangerously-skip-permissions` is refused), against the
 * model at `modelUrl`, with no other network traffic. Killed and reported after
 * {@linkcode CLAUDE_RUN_LIMIT_MS} (a hang guard).
 */
export async function runClaude(
  binary: string,
  prompt: string,
  options: {
    cwd: string;
    env: Record<string, string>;
    modelUrl: string;
    allowedTools?: string[];
    /** More arguments for the client (`--debug mcp`, say). */
    args?: string[];
  },
): Promise<ClaudeRun> {
  const allowed = ["Bash", "Read", "Edit", "Write", ...(options.allowedTools ?? [])].join(",");
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), CLAUDE_RUN_LIMIT_MS);
  try {
    const output = await new Deno.Command(binary, {
      args: [
        "-p",
        prompt,
        "--output-format",
        "json",
        "--allowedTools",
        allowed,
        ...(options.args ?? []),
      ],
      cwd: options.cwd,
      env: {
        ...options.env,
        ANTHROPIC_BASE_URL: options.modelUrl,
        ANTHROPIC_API_KEY: "sk-ant-scripted-model",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_AUTOUPDATER: "1",
        // We run as root in CI; this tells the client it is sandboxed.
        IS_SANDBOX: "1",
      },
      clearEnv: true,
      stdin: "null",
      signal: abort.signal,
    }).output();
    if (abort.signal.aborted) {
      throw new Error(
        `claude -p ${JSON.stringify(prompt)} hung: killed after ${CLAUDE_RUN_LIMIT_MS} ms ` +
          `(in ${options.cwd}); its stderr: ${new TextDecoder().decode(output.stderr)}`,
      );
    }
    const stdout = new TextDecoder().decode(output.stdout);
    let result: string | null = null;
    try {
      const parsed = JSON.parse(stdout);
      result = typeof parsed.result === "string" ? parsed.result : null;
    } catch {
      result = null;
    }
    return { code: output.code, stdout, stderr: new TextDecoder().decode(output.stderr), result };
  } finally {
    clearTimeout(timer);
  }
}

/** Pids of live (not zombie) processes but this one whose environment holds `NAME=value`. */
export function processesWithEnv(name: string, value: string): number[] {
  const pids: number[] = [];
  const wanted = `${name}=${value}`;
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name) || Number(entry.name) === Deno.pid) continue;
    try {
      // A zombie has exited; it only waits for its parent to reap it.
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      if (stat.slice(stat.lastIndexOf(")") + 2)[0] === "Z") continue;
      const environ = Deno.readTextFileSync(`/proc/${entry.name}/environ`).split("\0");
      if (environ.includes(wanted)) pids.push(Number(entry.name));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return pids;
}

/** Whether `pid` is a collector daemon (the one process a sandbox keeps between sessions). */
export function isCollectorProcess(pid: number): boolean {
  return commandLine(pid).includes("collector/daemon/main.ts");
}

/** The command line of a live process, or "" when it is gone. */
export function commandLine(pid: number): string {
  try {
    return Deno.readTextFileSync(`/proc/${pid}/cmdline`).split("\0").join(" ").trim();
  } catch {
    return "";
  }
}

/** What a client run under {@linkcode runGuarded} did. */
export interface ClientRun {
  /** Exit code. */
  code: number;
  /** Standard output. */
  stdout: string;
  /** Standard error. */
  stderr: string;
}

/**
 * Runs a real client once with a clean environment (`env` only) and no stdin, killed after
 * `limitMs` and then reported as a hang naming `what`, `cwd` and its stderr (the guard only turns
 * a hang into a failure).
 */
export async function runGuarded(
  binary: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string>; limitMs: number; what: string },
): Promise<ClientRun> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), options.limitMs);
  try {
    const output = await new Deno.Command(binary, {
      args: [...args],
      cwd: options.cwd,
      env: options.env,
      clearEnv: true,
      stdin: "null",
      signal: abort.signal,
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    if (abort.signal.aborted) {
      throw new Error(
        `${options.what} hung: killed after ${options.limitMs} ms (in ${options.cwd}); its ` +
          `stderr: ${stderr}`,
      );
    }
    return { code: output.code, stdout: new TextDecoder().decode(output.stdout), stderr };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Waits (30 s at most) until no process with `HOME=home` is left but the collector: hooks, MCP
 * servers and clients all exited. Throws naming the ones left.
 */
export async function waitForOnlyCollector(home: string): Promise<void> {
  const strays = () =>
    processesWithEnv("HOME", home).filter((pid) => !isCollectorProcess(pid)).map(commandLine)
      .filter((c) => c !== "");
  await waitFor(
    () => Promise.resolve(strays().length === 0 ? true : undefined),
    { timeoutMs: 30_000, what: "hooks, MCP servers and clients to exit" },
  ).catch((error) => {
    throw new Error(`${error.message}: ${JSON.stringify(strays())}`);
  });
}
