/**
 * The outside-connection probe: runs a command the way kiro-learn starts a `deno` (a launcher
 * script, the daemon's argv) with a fresh, empty `DENO_DIR` and every proxy variable pointing
 * at a local listener that records the first line of each request (`CONNECT dl.deno.land:443
 * HTTP/1.1` for Deno's update check). Nothing that listener hears would have stayed on the
 * machine. Shared by the launchers' tests and the attack suite.
 *
 * @module
 */
import { fromFileUrl } from "../path.ts";
import { startRecordingProxy } from "./recording_proxy.ts";

/** A module that lingers 4 s then exits: run in place of an entry, it does nothing of its own. */
export const LINGER_PROBE: string = fromFileUrl(
  new URL("../launch/testdata/linger_probe.ts", import.meta.url),
);

/** What the probe saw: the request lines the proxy received, and how the command ended. */
export interface OutsideConnections {
  /** First line of every request the proxy received (empty: nothing tried to leave). */
  requests: string[];
  /** The command's exit code. */
  code: number;
  /** Its stdout and stderr, for a failing assertion's message. */
  output: string;
}

/**
 * Runs `argv` with a clean environment (`PATH`, `HOME`, the proxies, a fresh `DENO_DIR`, and
 * `env`), its stdin closed (or `stdin`), and returns what reached the recording proxy. The
 * environment is clean on purpose: a caller's own `DENO_NO_UPDATE_CHECK` must not hide a
 * launcher that forgot it.
 */
export async function outsideConnections(
  argv: readonly string[],
  options: { env?: Record<string, string>; stdin?: string } = {},
): Promise<OutsideConnections> {
  const denoDir = await Deno.makeTempDir({ prefix: "kiro-learn-empty-deno-dir-" });
  await using proxy = startRecordingProxy();
  try {
    const child = new Deno.Command(argv[0], {
      args: argv.slice(1),
      clearEnv: true,
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        HOME: Deno.env.get("HOME") ?? "/nonexistent",
        DENO_DIR: denoDir,
        ...proxy.env,
        ...options.env,
      },
      stdin: options.stdin === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    if (options.stdin !== undefined) {
      const writer = child.stdin.getWriter();
      // A command that never reads its stdin closes it: that is no failure.
      await writer.write(new TextEncoder().encode(options.stdin)).catch(() => {});
      await writer.close().catch(() => {});
    }
    const out = await child.output();
    const text = new TextDecoder();
    return {
      requests: proxy.seen.map((r) => r.line),
      code: out.code,
      output: text.decode(out.stdout) + text.decode(out.stderr),
    };
  } finally {
    await Deno.remove(denoDir, { recursive: true });
  }
}
