import assert from "node:assert/strict";
import { computeOnlyPermissions, daemonWorkerOptions } from "./worker_options.ts";

Deno.test("computeOnlyPermissions: read the given paths, nothing else", () => {
  assert.deepEqual(computeOnlyPermissions(["/code/a.ts"]), {
    read: ["/code/a.ts"],
    net: false,
    env: false,
    run: false,
    write: false,
    ffi: false,
    sys: false,
    import: false,
  });
});

Deno.test("daemonWorkerOptions: sandboxed with the permissions, or without them when asked", () => {
  const permissions = computeOnlyPermissions(["/code/a.ts"]);
  assert.deepEqual(daemonWorkerOptions("w", { permissions, sandbox: true }), {
    type: "module",
    name: "w",
    deno: { permissions },
  });
  assert.deepEqual(daemonWorkerOptions("w", { permissions, sandbox: false }), {
    type: "module",
    name: "w",
  });
});

Deno.test("a Worker started with computeOnlyPermissions can read its code and nothing else", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const code = `${dir}/probe.ts`;
    await Deno.writeTextFile(
      code,
      `const names = ["net", "env", "run", "write", "ffi", "sys"] as const;
      const states = await Promise.all(names.map((name) => Deno.permissions.query({ name })));
      const read = await Deno.permissions.query({ name: "read", path: "${code}" });
      const other = await Deno.permissions.query({ name: "read", path: "${dir}" });
      self.postMessage({ denied: states.map((s) => s.state), read: read.state, other: other.state });`,
    );
    // Worker permissions need the daemon's --unstable-worker-options, so a child starts it, with
    // every permission itself: the Worker must still get only what the options give.
    const main = `${dir}/main.ts`;
    const options = new URL("./worker_options.ts", import.meta.url).href;
    await Deno.writeTextFile(
      main,
      `import { computeOnlyPermissions, daemonWorkerOptions } from "${options}";
      const worker = new Worker(new URL("file://${code}"), daemonWorkerOptions("probe", {
        permissions: computeOnlyPermissions(["${code}"]),
        sandbox: true,
      }));
      worker.onmessage = (e) => { console.log(JSON.stringify(e.data)); worker.terminate(); };`,
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", "--unstable-worker-options", main],
      stderr: "inherit",
    }).output();
    assert.equal(out.code, 0);
    const reply = JSON.parse(new TextDecoder().decode(out.stdout));
    // Not granted ("prompt" in a Worker: with no terminal to ask, a use is refused).
    assert.deepEqual(reply.denied.filter((state: string) => state === "granted"), []);
    assert.equal(reply.denied.length, 6);
    assert.equal(reply.read, "granted");
    assert.notEqual(reply.other, "granted");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
