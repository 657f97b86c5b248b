/**
 * A connection flood from another process, and another account when it can be: a `bash` child
 * (its `/dev/tcp`, no Deno needed, so any account can run it) opens many idle TCP connections to
 * a port and holds them, sending nothing (what any local user can do to the collector's port).
 *
 * @module
 */

/** A running flood. */
export interface Flood extends AsyncDisposable {
  /** Connections it opened (a refused connect is not counted). */
  opened: number;
  /** The account it runs as (`uid`). */
  uid: number;
}

// Opens $2 connections to 127.0.0.1:$1, prints how many it holds, and holds them until stdin ends.
const FLOOD_SCRIPT = [
  "port=$1 n=$2 ok=0",
  "for ((i = 0; i < n; i++)); do",
  '  if { exec {fd}<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null; then ok=$((ok + 1)); fi',
  "done",
  'echo "opened $ok"',
  "cat >/dev/null",
].join("\n");

/** The uid `nobody` has on Linux. */
const NOBODY = 65534;

/**
 * Starts a child holding `connections` idle connections to `127.0.0.1:port`, and resolves once
 * it has tried them all (within 120 s); disposing it ends the child, closing them. As root, the
 * child runs as `nobody` (`setpriv`): another local user.
 */
export async function startFlood(
  port: number,
  options: { connections: number },
): Promise<Flood> {
  const asNobody = Deno.uid() === 0;
  const bash = ["bash", "-c", FLOOD_SCRIPT, "flood", String(port), String(options.connections)];
  const argv = asNobody
    ? ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", "--", ...bash]
    : bash;
  const child = new Deno.Command(argv[0], {
    args: argv.slice(1),
    cwd: "/",
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const stdin = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const end = async () => {
    await stdin.close().catch(() => {});
    await lines.cancel().catch(() => {});
    await child.status;
  };
  const guard = setTimeout(() => child.kill("SIGKILL"), 120_000);
  let text = "";
  try {
    while (!/opened \d+/.test(text)) {
      const { value, done } = await lines.read();
      if (done) break;
      text += value;
    }
  } finally {
    clearTimeout(guard);
  }
  const opened = Number(/opened (\d+)/.exec(text)?.[1] ?? NaN);
  if (!Number.isFinite(opened)) {
    await end();
    throw new Error(`the flood child did not report: ${text}`);
  }
  return {
    opened,
    uid: asNobody ? NOBODY : Deno.uid() ?? -1,
    [Symbol.asyncDispose]: end,
  };
}
