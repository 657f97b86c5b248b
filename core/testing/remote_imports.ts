/**
 * The remote-import probe: runs a process's exact `deno run` flags on a probe module that tries
 * `import()` from Deno's default remote hosts, `jsr:` and `npm:`, with every proxy variable
 * pointing at a local listener that counts connections. Shared by the tests of every process
 * kiro-learn launches (the daemon's and the others').
 *
 * @module
 */
import assert from "node:assert/strict";
import { fromFileUrl } from "../path.ts";

/** The probe module (it prints each specifier's outcome as JSON). */
export const REMOTE_IMPORT_PROBE: string = fromFileUrl(
  new URL("../launch/testdata/remote_import_probe.ts", import.meta.url),
);

/**
 * Runs the remote-import probe as `argv` (its entry replaced by the probe) with every proxy
 * variable pointing at a local listener, and counts the connections that listener receives: a
 * module fetch from any host, or a registry request, would arrive there.
 */
export async function probeRemoteImports(
  argv: string[],
  entry: string,
): Promise<{ outcome: Record<string, string>; connections: number }> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const proxy = `http://127.0.0.1:${listener.addr.port}`;
  let connections = 0;
  const accepting = (async () => {
    for await (const conn of listener) {
      connections++;
      conn.close();
    }
  })();
  try {
    const args = argv.slice(1).map((a) => a === entry ? REMOTE_IMPORT_PROBE : a);
    assert.ok(args.includes(REMOTE_IMPORT_PROBE), "the entry was replaced by the probe");
    const out = await new Deno.Command(argv[0], {
      args,
      env: {
        HTTPS_PROXY: proxy,
        HTTP_PROXY: proxy,
        https_proxy: proxy,
        http_proxy: proxy,
        NO_PROXY: "",
        no_proxy: "",
        NPM_CONFIG_REGISTRY: `${proxy}/`,
        KIRO_LEARN_HOME: "/nonexistent/kiro-learn",
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    assert.ok(text.trim() !== "", new TextDecoder().decode(out.stderr));
    return { outcome: JSON.parse(text), connections };
  } finally {
    listener.close();
    await accepting.catch(() => {});
  }
}
