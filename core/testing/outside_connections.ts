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
import type { Settings } from "../settings/mod.ts";
import { cliLauncherScript } from "../launch/mod.ts";
import { hookLauncherScript, mcpHeadersLauncherScript, mcpLauncherScript } from "../launch/mod.ts";
import {
  CLI_ENTRY,
  MCP_ENTRY,
  MCP_HEADERS_ENTRY,
  shimEntryPath,
  type ShimSurface,
} from "../launch/mod.ts";
import { mcpHeadersCommand } from "../launch/mod.ts";
import { shellQuote } from "../launch/mod.ts";
import { starterScript } from "../launch/mod.ts";
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

/**
 * Every script kiro-learn writes that starts a `deno` (the hook launchers, the MCP server's and
 * headers helper's, the collector's starter, `kiro-learn link`'s), as written for `settings`,
 * with its entry module replaced by {@linkcode LINGER_PROBE} (and the starter's output kept):
 * each runs the probe with that script's exact flags and environment.
 */
export function lingeringLaunchers(
  settings: Pick<Settings, "dataDir" | "paths" | "collector">,
): { name: string; script: string }[] {
  const swap = (script: string, entry: string) => {
    if (!script.includes(shellQuote(entry))) throw new Error(`the script does not run ${entry}`);
    return script.replaceAll(shellQuote(entry), shellQuote(LINGER_PROBE));
  };
  const surfaces: ShimSurface[] = ["kiro-cli", "kiro-ide", "claude-code"];
  return [
    ...surfaces.map((surface) => ({
      name: `hook-${surface}`,
      script: swap(
        hookLauncherScript(surface, { settings, preferCompiled: false }),
        shimEntryPath(surface),
      ),
    })),
    {
      name: "mcp-server",
      script: swap(
        mcpLauncherScript({ host: settings.collector.host, port: settings.collector.port }),
        MCP_ENTRY,
      ),
    },
    {
      name: "mcp-headers",
      script: swap(
        mcpHeadersLauncherScript(mcpHeadersCommand(settings), { settings }),
        MCP_HEADERS_ENTRY,
      ),
    },
    {
      name: "start-collector",
      // Its output goes to /dev/null; here the probe's must be seen.
      script: swap(starterScript({ dataDir: settings.dataDir }), CLI_ENTRY)
        .replace(" >/dev/null 2>&1", ""),
    },
    { name: "kiro-learn (link)", script: swap(cliLauncherScript(), CLI_ENTRY) },
  ];
}

/**
 * Runs each of {@linkcode lingeringLaunchers} (together, as `sh <script>`, a prompt hook's
 * payload on stdin) under {@linkcode outsideConnections}; `dir` holds the scripts.
 */
export function launchersOutside(
  settings: Pick<Settings, "dataDir" | "paths" | "collector">,
  dir: string,
): Promise<({ name: string } & OutsideConnections)[]> {
  return Promise.all(
    lingeringLaunchers(settings).map(async ({ name, script }) => {
      const path = `${dir}/${name.replace(/\W+/g, "-")}`;
      await Deno.writeTextFile(path, script);
      const seen = await outsideConnections(["sh", path], {
        env: { KIRO_LEARN_HOME: settings.dataDir },
        stdin: `{"hook_event_name":"UserPromptSubmit"}`,
      });
      return { name, ...seen };
    }),
  );
}
