/**
 * The self-escalation probe: a script run with exactly the collector's `deno run` flags (its
 * entry swapped for `collector/daemon/testdata/permission_probe.ts`) reports what it can and
 * cannot do, above all whether it can rewrite what decides its own permissions at the next start.
 *
 * @module
 */
import type { Settings } from "@kiro-learn/core/settings";
import { DAEMON_ENTRY, daemonArgs } from "../../daemon/permissions/mod.ts";

const PROBE = new URL("../../daemon/testdata/permission_probe.ts", import.meta.url).pathname;

/** Each probed action and its outcome (`allowed`, `denied`, `prompt`, or `error: …`). */
export type SandboxReport = Record<string, string>;

/**
 * Runs the probe with `settings`' daemon flags and `env`, against the data dir `dataDir`;
 * `outside` is a path outside it that the probe tries to write.
 */
export async function probeDaemonSandbox(
  settings: Settings,
  options: { env: Record<string, string>; dataDir: string; outside: string },
): Promise<SandboxReport> {
  const args = daemonArgs(settings).map((a) => a === DAEMON_ENTRY ? PROBE : a);
  const probe = await new Deno.Command(Deno.execPath(), {
    args: [...args, options.dataDir, options.outside],
    env: options.env,
    stderr: "inherit",
  }).output();
  return JSON.parse(new TextDecoder().decode(probe.stdout));
}
