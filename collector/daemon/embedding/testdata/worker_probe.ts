// Runs as a Worker with the use-lite Worker's permissions and reports what it can do.
// No local imports: a Worker needs read permission for local modules, and this one has none.
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

// deno-lint-ignore no-explicit-any
const scope = self as any;
const [core, model]: string[] = await new Promise((resolve) => {
  scope.onmessage = (e: MessageEvent<string[]>) => resolve(e.data);
});
const report = {
  read_core_dist: await attempt(() => Deno.readDirSync(core)),
  read_model_dist: await attempt(() => Deno.statSync(`${model}/model.json`)),
  read_outside: await attempt(() => Deno.readTextFile("/etc/hostname")),
  write: await attempt(() => Deno.writeTextFile(`${model}/probe.txt`, "x")),
  net: await attempt(() => Deno.connect({ hostname: "127.0.0.1", port: 9 })),
  env: await attempt(() => Deno.env.get("PATH")),
  run: await attempt(() => new Deno.Command("true").output()),
  ffi: Deno.permissions.querySync({ name: "ffi" }).state,
};
scope.postMessage(report);
