// Runs with an embedding sandbox's permission flags and reports what it can and cannot do.
const [allowedDir] = Deno.args;

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
  read_allowed_dir: await attempt(() => Deno.readDirSync(allowedDir)),
  read_outside: await attempt(() => Deno.readTextFile("/etc/hostname")),
  write_allowed_dir: await attempt(() => Deno.writeTextFile(`${allowedDir}/probe.txt`, "x")),
  net: await attempt(() => Deno.connect({ hostname: "127.0.0.1", port: 9 })),
  env: await attempt(() => Deno.env.get("PATH")),
  run: await attempt(() => new Deno.Command("true").output()),
  ffi_other: Deno.permissions.querySync({ name: "ffi", path: "/usr/lib" }).state,
  sys: await attempt(() => Deno.hostname()),
};
console.log(JSON.stringify(report));
