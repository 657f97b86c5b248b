/**
 * The test command's guard against litter: runs the suite with a private `TMPDIR` and fails,
 * naming what is left, when anything remains in it once the suite is over. A test owns what it
 * makes; a temp dir it forgets, or a client it runs that keeps files in the temp dir (Claude
 * Code's `claude-<uid>` and `cc-socks`, say), shows up here instead of piling up in /tmp.
 *
 * `deno task test` runs the suite through it:
 *
 * ```sh
 * deno run --allow-run --allow-read --allow-write --allow-env collector/tooling/testing/tmp_guard.ts deno test --allow-all --parallel
 * ```
 *
 * @module
 */

/**
 * Prefix of the private temp dir the suite runs with (made in the caller's temp dir). Short on
 * purpose: the tests' data dirs live below it, and a Unix socket's path may hold at most 107
 * bytes; a longer prefix pushed the sandboxes' `collector.sock` past it, so the collector served
 * no socket and the hooks' fast path silently fell back to the shim.
 */
export const SUITE_TMP_PREFIX = "kl-";

/**
 * Mode of that folder: others may pass through it but not list it. Tests run parts as other
 * users (PostgreSQL as `nobody`, the attack suite's second user), each in a folder of its own
 * below it.
 */
export const SUITE_TMP_MODE = 0o711;

/** The outcome of {@linkcode runWithPrivateTmp}. */
export interface GuardedRun {
  /** The command's exit code, or 1 when it passed but left entries behind. */
  code: number;
  /** What was left in the private temp dir, as paths relative to it (empty: nothing). */
  left: string[];
}

/** Entries named in the report at most (a leak in a loop would otherwise flood the log). */
const REPORTED_MAX = 40;

/**
 * Runs `argv` (its stdio inherited; `deno` is the Deno that runs this) with `TMPDIR`, `TMP` and
 * `TEMP` pointing at a fresh private folder; lists what is left in it once the command exited,
 * then removes the folder whatever happened.
 */
export async function runWithPrivateTmp(
  argv: readonly string[],
  options: { parentDir?: string; env?: Record<string, string> } = {},
): Promise<GuardedRun> {
  const tmp = await Deno.makeTempDir({ dir: options.parentDir, prefix: SUITE_TMP_PREFIX });
  await Deno.chmod(tmp, SUITE_TMP_MODE);
  // Ctrl-C reaches the suite too: wait for it to exit and still clean up.
  const ignore = () => {};
  Deno.addSignalListener("SIGINT", ignore);
  try {
    const program = argv[0] === "deno" ? Deno.execPath() : argv[0];
    const status = await new Deno.Command(program, {
      args: argv.slice(1),
      // onnxruntime's telemetry writes `mat-debug-<pid>.log` into the temp dir of every process
      // that loads it; the collector's own child turns it off (embedding/onnx.ts, tested there),
      // and so does the suite for the tests that load the runtime in-process.
      env: { ...options.env, TMPDIR: tmp, TMP: tmp, TEMP: tmp, ORT_DISABLE_TELEMETRY: "1" },
      stdin: "inherit",
      stdout: "inherit",
      stderr: "inherit",
    }).spawn().status;
    const left = await leftIn(tmp);
    return { code: status.code !== 0 ? status.code : left.length > 0 ? 1 : 0, left };
  } finally {
    Deno.removeSignalListener("SIGINT", ignore);
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
}

/** The entries of `dir`, one level deep (a folder with what it holds, for context). */
async function leftIn(dir: string): Promise<string[]> {
  const left: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.isDirectory) {
      left.push(entry.name);
      continue;
    }
    const inside: string[] = [];
    try {
      for await (const sub of Deno.readDir(`${dir}/${entry.name}`)) inside.push(sub.name);
    } catch {
      // Unreadable: the name alone says whose it is.
    }
    inside.sort();
    const shown = inside.slice(0, 3).join(", ") + (inside.length > 3 ? ", …" : "");
    left.push(`${entry.name}/${inside.length > 0 ? ` (${shown})` : ""}`);
  }
  return left.sort();
}

/** The report for entries left behind: what, and what to do about it. */
export function leftReport(left: readonly string[]): string {
  const listed = left.slice(0, REPORTED_MAX).map((name) => `  ${name}`);
  if (left.length > REPORTED_MAX) listed.push(`  … and ${left.length - REPORTED_MAX} more`);
  return [
    `the suite left ${left.length} entr${left.length === 1 ? "y" : "ies"} in its temp dir ` +
    "(every test must remove what it makes, and give the clients it runs a TMPDIR it removes):",
    ...listed,
  ].join("\n");
}

if (import.meta.main) {
  if (Deno.args.length === 0) {
    console.error("usage: tmp_guard.ts COMMAND [ARGS...]   (runs it with a private TMPDIR)");
    Deno.exit(2);
  }
  const run = await runWithPrivateTmp(Deno.args);
  if (run.left.length > 0) console.error(`\nFAILED ${leftReport(run.left)}`);
  Deno.exit(run.code);
}
