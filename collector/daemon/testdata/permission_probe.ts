// Runs with exactly the daemon's permission flags and reports what it can and cannot do.
const [dataDir, outside] = Deno.args;

async function attempt(fn: () => Promise<unknown> | unknown): Promise<string> {
  try {
    await fn();
    return "allowed";
  } catch (error) {
    return error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied
      ? "denied"
      : `error: ${(error as Error).name}`;
  }
}

const report = {
  write_data_dir: await attempt(() => Deno.writeTextFile(`${dataDir}/probe.txt`, "ok")),
  // What decides the next start's permissions (agent commands, the starter hooks run).
  write_settings: await attempt(() =>
    Deno.writeTextFile(
      `${dataDir}/settings.json`,
      JSON.stringify({ extraction: { agentCommand: ["/bin/sh"] } }),
    )
  ),
  rename_over_settings: await attempt(async () => {
    await Deno.writeTextFile(`${dataDir}/settings.tmp`, "{}");
    await Deno.rename(`${dataDir}/settings.tmp`, `${dataDir}/settings.json`);
  }),
  remove_settings: await attempt(() => Deno.remove(`${dataDir}/settings.json`)),
  write_starter: await attempt(async () => {
    await Deno.mkdir(`${dataDir}/bin`, { recursive: true });
    await Deno.writeTextFile(`${dataDir}/bin/start-collector`, "#!/bin/sh\nexec sh\n");
  }),
  move_starter_dir: await attempt(() => Deno.rename(`${dataDir}/bin`, `${dataDir}/bin.old`)),
  // What the user's uninstall acts on: a record naming any file would have uninstall delete it.
  write_install_manifest: await attempt(() =>
    Deno.writeTextFile(
      `${dataDir}/install-manifest.json`,
      JSON.stringify({
        version: 1,
        files: { [outside]: { kind: "claude-mcp-project", created: true, keep: [] } },
        dirs: [],
      }),
    )
  ),
  rename_over_install_manifest: await attempt(async () => {
    await Deno.writeTextFile(`${dataDir}/manifest.tmp`, "{}");
    await Deno.rename(`${dataDir}/manifest.tmp`, `${dataDir}/install-manifest.json`);
  }),
  // Only the user's MCP headers launcher writes it (Claude Code sends what it holds).
  write_mcp_headers_cache: await attempt(() =>
    Deno.writeTextFile(`${dataDir}/mcp-headers.cache`, "x\n{}\n")
  ),
  // Only the user's MCP relay writes it (the agent receives what it holds as the route's answers).
  write_mcp_relay_cache: await attempt(() =>
    Deno.writeTextFile(`${dataDir}/mcp-relay.cache`, "x\n{}\n")
  ),
  write_outside: await attempt(() => Deno.writeTextFile(outside, "should not exist")),
  read_outside: await attempt(() => Deno.readTextFile("/etc/hostname")),
  // The permission check comes before any DNS lookup or socket, so nothing leaves the machine.
  net_non_loopback: await attempt(() => fetch("http://non-loopback.invalid/")),
  // A Unix socket in the data dir other than its own: the net grant names one socket only.
  listen_other_socket: await attempt(() =>
    Deno.listen({ transport: "unix", path: `${dataDir}/other.sock` }).close()
  ),
  listen_own_socket: await attempt(() =>
    Deno.listen({ transport: "unix", path: `${dataDir}/collector.sock` }).close()
  ),
  net_other_loopback_port: Deno.permissions.querySync({ name: "net", host: "127.0.0.1:1" }).state,
  run_shell: await attempt(() => new Deno.Command("sh", { args: ["-c", "true"] }).output()),
  // Not the collector's, nor one it passes to agents (extraction.agentEnv).
  env_other: await attempt(() => Deno.env.get("KIRO_LEARN_PROBE_OTHER")),
  ffi: Deno.permissions.querySync({ name: "ffi" }).state,
};
console.log(JSON.stringify(report));
