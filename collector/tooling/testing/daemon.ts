/**
 * Test helper: a real collector daemon as a subprocess, launched exactly as `serve` launches it
 * (same `deno run` flags), in a temporary data dir on a free loopback port.
 *
 * @module
 */
import { loadSettings, type Settings } from "@kiro-learn/core/settings";
import { makeRecord } from "@kiro-learn/core/testing";
import { daemonArgs, daemonEnv } from "../../daemon/permissions/mod.ts";
import { scriptedAgent } from "./scripted_agent.ts";

/** A daemon under test. */
export interface TestDaemon {
  /** Base URL. */
  url: string;
  /** Port. */
  port: number;
  /** API token. */
  token: string;
  /** The temporary data dir (KIRO_LEARN_HOME). */
  dataDir: string;
  /** Loaded settings of that data dir. */
  settings: Settings;
  /** The daemon's pid. */
  pid: () => number;
  /** Environment to give child processes (shims, CLI, MCP) so they find this daemon. */
  env: Record<string, string>;
  /** Calls the API with the token. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** SIGKILLs the daemon. */
  kill(): Promise<void>;
  /** Stops it cleanly (SIGTERM: the WAL is checkpointed) and keeps the data dir. */
  stop(): Promise<void>;
  /** Starts it again on the same data dir and port. */
  restart(): Promise<void>;
  /** Stops it (SIGTERM) and removes the data dir. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts a daemon whose ACP extraction agent always answers garbage: one failed attempt opens the
 * extraction breaker for ten minutes (compaction and reconciliation off).
 */
export async function startTestDaemonWithFailingAgent(): Promise<TestDaemon> {
  const agent = await scriptedAgent([{ reply: "Sure! Nothing to see here." }]);
  return await startTestDaemon({
    disposeAfter: agent,
    settings: {
      extraction: {
        strategy: "acp",
        agentCommand: agent.command,
        sizeThresholdBytes: 16_777_216,
        maxAttempts: 1,
        breakerThreshold: 1,
        breakerCooldownMs: 600_000,
      },
      compaction: { enabled: false },
      reconciliation: { enabled: false },
    },
  });
}

/** Finds a free loopback port. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Starts a daemon; `settings` is merged into the data dir's settings.json. */
export async function startTestDaemon(
  options: {
    settings?: Record<string, unknown>;
    dataDir?: string;
    keepDataDir?: boolean;
    /** Extra environment for the daemon (inherited by the agents it spawns). */
    env?: Record<string, string>;
    /** The daemon's working directory (default: the test's). */
    cwd?: string;
    /** Start it with this many file descriptors at most (soft and hard, through `prlimit`). */
    fileLimit?: number;
    /** Disposed after the daemon stops (or if it does not start): the agent it runs. */
    disposeAfter?: AsyncDisposable;
  } = {},
): Promise<TestDaemon> {
  try {
    return await launchTestDaemon(options);
  } catch (error) {
    await options.disposeAfter?.[Symbol.asyncDispose]();
    throw error;
  }
}

async function launchTestDaemon(
  options: Parameters<typeof startTestDaemon>[0] & object,
): Promise<TestDaemon> {
  const dataDir = options.dataDir ?? await Deno.makeTempDir({ prefix: "kiro-learn-test-" });
  await Deno.chmod(dataDir, 0o700);
  const port = freePort();
  // Tests that do not ask for embeddings run without the model (it costs ~190 MB per daemon).
  const file = {
    embedding: { backend: "off" },
    ...options.settings,
    collector: { host: "127.0.0.1", port, ...(options.settings?.collector as object) },
  };
  await Deno.writeTextFile(`${dataDir}/settings.json`, JSON.stringify(file, null, 2));
  const env = { KIRO_LEARN_HOME: dataDir };
  const settings = loadSettings({ env: { ...Deno.env.toObject(), ...env } });
  const host = settings.collector.host.includes(":")
    ? `[${settings.collector.host}]`
    : settings.collector.host;
  let child: Deno.ChildProcess | undefined;
  let token = "";

  async function launch(): Promise<void> {
    // prlimit sets the limit and execs the daemon: the pid stays the daemon's.
    const argv = options.fileLimit === undefined ? [Deno.execPath(), ...daemonArgs(settings)] : [
      "prlimit",
      `--nofile=${options.fileLimit}:${options.fileLimit}`,
      "--",
      Deno.execPath(),
      ...daemonArgs(settings),
    ];
    child = new Deno.Command(argv[0], {
      args: argv.slice(1),
      cwd: options.cwd,
      env: { ...daemonEnv(), ...options.env, ...env, KIRO_LEARN_PORT: "" },
      stdin: "null",
      stdout: "null",
      stderr: Deno.env.get("KIRO_LEARN_TEST_LOGS") ? "inherit" : "null",
    }).spawn();
    // A hang guard, generous for a loaded machine: the loop ends as soon as it answers.
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      try {
        const res = await fetch(`http://${host}:${port}/healthz`);
        await res.body?.cancel();
        if (res.ok) {
          token = (await Deno.readTextFile(`${dataDir}/token`)).trim();
          return;
        }
      } catch {
        // Not listening yet.
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`test daemon did not start on port ${port}`);
  }

  try {
    await launch();
  } catch (error) {
    // A daemon that never answered leaves no process and no data dir behind.
    try {
      child?.kill("SIGKILL");
    } catch {
      // Already gone.
    }
    await child?.status;
    if (!options.keepDataDir) await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    throw error;
  }
  const url = `http://${host}:${port}`;
  return {
    url,
    port,
    get token() {
      return token;
    },
    dataDir,
    settings,
    pid: () => child!.pid,
    env,
    fetch(path, init = {}) {
      const headers = new Headers(init.headers);
      if (!headers.has("authorization")) headers.set("authorization", `Bearer ${token}`);
      return fetch(url + path, { ...init, headers });
    },
    async kill() {
      child!.kill("SIGKILL");
      await child!.status;
    },
    async stop() {
      child!.kill("SIGTERM");
      await child!.status;
    },
    restart: launch,
    async [Symbol.asyncDispose]() {
      try {
        child!.kill("SIGTERM");
      } catch {
        // Already gone.
      }
      try {
        await child!.status;
        if (!options.keepDataDir) await Deno.remove(dataDir, { recursive: true });
      } finally {
        // The agent's temp dir goes too when the data dir would not (an agent's child still
        // writing there): a failed removal must not leave a second folder behind.
        await options.disposeAfter?.[Symbol.asyncDispose]();
      }
    },
  };
}

/** POSTs JSON with the token. */
export function postJson(
  daemon: TestDaemon,
  path: string,
  body: unknown,
): Promise<Response> {
  return daemon.fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** Title of {@linkcode saveLeapYearMemory}'s record. */
export const LEAP_YEAR_TITLE = "Date parser leap-year bug";

/**
 * Saves, in `namespace`, the memory the recorded Claude Code prompt of `shims/testdata` (about the
 * date parser failing on leap years) retrieves; throws when the collector refuses it.
 */
export async function saveLeapYearMemory(daemon: TestDaemon, namespace: string): Promise<void> {
  const res = await postJson(
    daemon,
    "/v1/memories",
    makeRecord({
      namespace,
      title: LEAP_YEAR_TITLE,
      summary: "parseDate rejected February 29 in leap years because of a fixed days table.",
      concepts: ["leap-year"],
    }),
  );
  if (!res.ok) throw new Error(`saving the test memory failed: ${res.status} ${await res.text()}`);
  await res.body?.cancel();
}
