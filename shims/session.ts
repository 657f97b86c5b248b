/**
 * Session ids for agents whose hook payloads carry none (Kiro CLI embedded hooks, Kiro IDE
 * 0.x). kiro-learn kept one in a world-writable `/tmp` file per directory, so parallel
 * sessions in one folder shared or overwrote it (spec §13 item 20). Here the id is computed,
 * never stored:
 *
 * 1. `KIRO_SESSION_ID` from the hook's environment (newer Kiro builds set it), if valid;
 * 2. else the agent process: the shim's parent, skipping shells and wrappers when `/proc` can
 *    be read, hashed with that process's start time (`/proc/<pid>/stat` field 22), so a reused
 *    pid never continues an old session;
 * 3. else (no `/proc`, or not readable: Deno grants `/proc` only with `--allow-all`, so this is
 *    the normal case under the shim's narrow permissions) the agent's pid with today's local
 *    date; a session running past midnight is split in two.
 *
 * "The agent's pid" is `--agent-pid=<n>` when the hook command passes it (write the hook as
 * `<shim argv> --agent-pid=$PPID || true`: `$PPID` of the hook's shell is the agent), else the
 * shim's parent, which is the agent only when the hook command `exec`s the shim; with a plain
 * `<shim> || true` the parent is a fresh shell per hook and every hook would get a new session.
 *
 * @module
 */
import { envGet, type EnvLike } from "@kiro-learn/core/env";
import { sha256Hex } from "@kiro-learn/core/project";

export { MAX_SESSION_ID, validSessionId } from "@kiro-learn/core/hooks";
import { validSessionId } from "@kiro-learn/core/hooks";

/** Process names that sit between the agent and the shim without being the agent. */
const WRAPPERS = new Set([
  "sh",
  "bash",
  "dash",
  "zsh",
  "fish",
  "ksh",
  "mksh",
  "tcsh",
  "csh",
  "busybox",
  "env",
  "timeout",
  "nohup",
  "nice",
  "stdbuf",
  "setsid",
]);

/** Where {@linkcode kiroSessionId} looks; every field is injectable for tests. */
export interface SessionIdOptions {
  /** Environment (defaults to `Deno.env`). */
  env?: EnvLike;
  /** Parent pid (defaults to `Deno.ppid`). */
  ppid?: number;
  /** The agent's pid, when the hook command passed it (`--agent-pid=$PPID`); wins over `ppid`. */
  agentPid?: number;
  /** Reads a `/proc` file or returns null (defaults to a guarded `Deno.readTextFileSync`). */
  readProc?: (path: string) => string | null;
  /** Clock (defaults to now). */
  now?: Date;
  /** Machine name mixed into the hash, so two hosts sharing a data dir never collide. */
  hostname?: string;
}

/** The session id for a Kiro hook (see the module doc for the rules). */
export function kiroSessionId(options: SessionIdOptions = {}): string {
  const fromEnv = validSessionId(envGet(options.env, "KIRO_SESSION_ID"));
  if (fromEnv !== null) return fromEnv;
  const host = options.hostname ?? "localhost";
  const ppid = options.agentPid ?? options.ppid ?? Deno.ppid;
  const agent = agentProcess(ppid, options.readProc ?? readProcFile);
  if (agent !== null) return "kiro-" + hash(`${host}:${agent.pid}:${agent.startTicks}`);
  return "kiro-" + hash(`${host}:${ppid}:${localDate(options.now ?? new Date())}`);
}

/** `--agent-pid=<n>` from a shim's arguments, when present and a plausible pid. */
export function agentPidFromArgs(args: readonly string[]): number | undefined {
  for (const arg of args) {
    const match = /^--agent-pid=(\d{1,10})$/.exec(arg);
    if (match && Number(match[1]) > 1) return Number(match[1]);
  }
  return undefined;
}

/** The first non-wrapper ancestor and its start time, or null when `/proc` is unreadable. */
export function agentProcess(
  ppid: number,
  readProc: (path: string) => string | null,
): { pid: number; startTicks: string } | null {
  let pid = ppid;
  let found: { pid: number; startTicks: string } | null = null;
  for (let depth = 0; depth < 8 && pid > 1; depth++) {
    const stat = parseStat(readProc(`/proc/${pid}/stat`));
    if (stat === null) return found;
    found = { pid, startTicks: stat.startTicks };
    if (!WRAPPERS.has(stat.comm)) return found;
    pid = stat.ppid;
  }
  return found;
}

/** Parses `/proc/<pid>/stat`; the command name may itself hold spaces and parentheses. */
export function parseStat(
  text: string | null,
): { comm: string; ppid: number; startTicks: string } | null {
  if (text === null) return null;
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return null;
  const fields = text.slice(close + 2).trim().split(/\s+/);
  // fields[0] is field 3 (state), so field n is fields[n - 3].
  const ppid = Number(fields[1]);
  const startTicks = fields[19];
  if (!Number.isInteger(ppid) || startTicks === undefined) return null;
  return { comm: text.slice(open + 1, close), ppid, startTicks };
}

function readProcFile(path: string): string | null {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return null;
  }
}

function hash(text: string): string {
  return sha256Hex(text).slice(0, 32);
}

function localDate(now: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}
