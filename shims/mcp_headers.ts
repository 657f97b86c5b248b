/**
 * Claude Code's `headersHelper` for the collector's MCP route (`/v1/mcp`): prints, as one JSON
 * object on stdout, the headers Claude Code adds to every request of that MCP connection — the
 * bearer token and the session's project (its namespace).
 *
 * Its launcher (core/launch `mcpHeadersLauncherScript`) first asks the collector over its Unix
 * socket, which prints the same object with no Deno process; this helper is what runs when that
 * fast path cannot answer (no socket or curl, a project no `.git` folder decides, a collector
 * that is down or too slow).
 *
 * - **The token only goes to our collector.** Before printing it, the helper asks the process on
 *   the collector's port for the hello proof (`core/api/wire.ts`); a process that cannot prove
 *   it holds the token (another user's collector, another program) gets no token: the helper
 *   prints the project alone, and that server's tools are simply missing from the session.
 * - **The project.** Claude Code runs a user-scope helper in its config folder (`~/.claude`),
 *   not in the session's folder, and passes no project variable (verified with 2.1.332: the
 *   helper's cwd is `~/.claude`, its environment holds `CLAUDE_CODE_MCP_SERVER_NAME`/`_URL` and
 *   no `CLAUDE_PROJECT_DIR`). The session's folder is Claude Code's own working directory: the
 *   launcher (core/launch `mcpHeadersLauncherScript`) reads it from `/proc/<pid>/cwd` of the
 *   nearest ancestor whose folder differs from its own and passes it as `--agent-cwd=`; the
 *   helper resolves the project with the hooks' own function. Linux only: elsewhere the
 *   installer keeps the stdio server.
 * - **A collector that is down** is started with the hooks' starter and awaited within
 *   `shim.timeoutMs`, as the prompt hook does; Claude Code runs the helper once per connection.
 *
 * Always exits 0 with a JSON object: a failing helper would only cost the user a log line.
 *
 * @module
 */
import {
  checkCollectorProof,
  fetchCollector,
  helloPath,
  MCP_NAMESPACE_HEADER,
  newHelloNonce,
  readHelloProof,
} from "@kiro-learn/core/api/wire";
import { AGENT_CWD_ARG } from "@kiro-learn/core/launch";
import { isInternal, readShimEnv, type ShimEnv } from "./env.ts";
import {
  collectorListening,
  loadShimConfig,
  projectFor,
  type ShimConfig,
  waitForCollector,
} from "./transport.ts";
import { startCollectorDetached } from "./_autostart.ts";

/** The headers to print: the token only when the collector proved itself. */
export async function mcpHeaders(
  env: ShimEnv,
  options: { projectDir: string | null; config: ShimConfig | null },
): Promise<Record<string, string>> {
  const headers: Record<string, string> = {};
  if (options.projectDir !== null) {
    headers[MCP_NAMESPACE_HEADER] = projectFor(options.projectDir, env).namespace;
  }
  const config = options.config;
  if (config === null) return headers;
  let token = config.token;
  let proven = token !== null && await proves(config, token);
  if (!proven && !await collectorListening(config)) {
    // Down (after a reboot, say): start it as a hook would, and wait within the hook's budget.
    if (startCollectorDetached(config.starter).status === "started") {
      token = await waitForCollector(config, { deadline: Date.now() + config.timeoutMs });
      proven = token !== null && await proves(config, token);
    }
  }
  if (proven) headers["Authorization"] = `Bearer ${token}`;
  return headers;
}

/** True when the process on the collector's port proves it holds `token`. Never throws. */
export async function proves(config: ShimConfig, token: string): Promise<boolean> {
  const challenge = { port: config.collectorPort, nonce: newHelloNonce() };
  try {
    const response = await fetchCollector(
      { host: config.collectorHost, port: config.collectorPort },
      new Request(`http://${config.collectorAddress}${helloPath(challenge.nonce)}`, {
        signal: AbortSignal.timeout(config.timeoutMs),
      }),
    );
    const body = await response.text();
    return response.status === 200 &&
      await checkCollectorProof(token, { ...challenge, proof: readHelloProof(body) });
  } catch {
    return false;
  }
}

/** The agent's folder its launcher found (`--agent-cwd=`), or null when it found none. */
export function agentCwdArg(args: readonly string[]): string | null {
  const value = args.find((a) => a.startsWith(AGENT_CWD_ARG))?.slice(AGENT_CWD_ARG.length);
  return value ? value : null;
}

/** Runs the helper: prints the headers and exits 0. */
export async function main(): Promise<void> {
  const env = readShimEnv();
  let headers: Record<string, string> = {};
  if (!isInternal(env)) {
    try {
      headers = await mcpHeaders(env, {
        projectDir: agentCwdArg(Deno.args),
        config: loadShimConfig({ env }),
      });
    } catch {
      // A broken settings file or an unreadable folder: no headers, and the route says why.
    }
  }
  console.log(JSON.stringify(headers));
}

if (import.meta.main) await main();
