import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import fc from "fast-check";
import { dataDir, dataPaths, ensureDataDir, SettingsError, writeSecureFile } from "./mod.ts";
import { locateJsonError } from "./_json_position.ts";

const POSIX = Deno.build.os !== "windows";

function mode(path: string): number {
  return Deno.statSync(path).mode! & 0o777;
}

async function withDir(fn: (dir: string) => void | Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "kl_paths_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("dataDir: KIRO_LEARN_HOME wins, else <HOME>/.kiro-learn", () => {
  assert.equal(dataDir({ KIRO_LEARN_HOME: "/opt/kl", HOME: "/home/a" }), "/opt/kl");
  assert.equal(dataDir({ HOME: "/home/a" }), "/home/a/.kiro-learn");
  assert.equal(dataDir({ KIRO_LEARN_HOME: "", HOME: "/home/a" }), "/home/a/.kiro-learn");
  assert.equal(dataDir({ KIRO_LEARN_HOME: "rel/dir" }), resolve("rel/dir"));
  assert.equal(dataDir({ USERPROFILE: "/users/b" }), "/users/b/.kiro-learn");
  assert.throws(
    () => dataDir({}),
    (e) => e instanceof SettingsError && /KIRO_LEARN_HOME/.test(e.message),
  );
});

Deno.test("dataPaths lists every file of the data dir", () => {
  assert.deepEqual(dataPaths("/d"), {
    settings: "/d/settings.json",
    token: "/d/token",
    db: "/d/kiro-learn.db",
    spool: "/d/spool",
    logs: "/d/logs",
    models: "/d/models",
    pid: "/d/collector.pid",
    bin: "/d/bin",
    starter: "/d/bin/start-collector",
    socket: "/d/collector.sock",
    hookAuth: "/d/hook-auth",
    unanswered: "/d/collector.unanswered",
    mcpHeadersCache: "/d/mcp-headers.cache",
    mcpRelayCache: "/d/mcp-relay.cache",
    tcpRelaySocket: "/d/collector-tcp.sock",
    installManifest: "/d/install-manifest.json",
    teamPassword: "/d/team-password",
    viewerLinks: "/d/viewer-links",
    agentWorkdir: "/d/agent-workdir",
  });
});

Deno.test({
  name: "ensureDataDir creates 0700 and tightens a wider existing dir",
  ignore: !POSIX,
  fn: () =>
    withDir((root) => {
      const fresh = join(root, "a", "b", ".kiro-learn");
      ensureDataDir(fresh);
      assert.equal(mode(fresh), 0o700);

      const legacy = join(root, "legacy");
      Deno.mkdirSync(legacy);
      Deno.chmodSync(legacy, 0o755);
      ensureDataDir(legacy);
      assert.equal(mode(legacy), 0o700);

      ensureDataDir(legacy);
      assert.equal(mode(legacy), 0o700);
    }),
});

Deno.test("ensureDataDir refuses a path that is a file", async () => {
  await withDir((root) => {
    const file = join(root, "f");
    Deno.writeTextFileSync(file, "x");
    assert.throws(() => ensureDataDir(file));
  });
});

Deno.test("writeSecureFile writes 0600 atomically and replaces content", async () => {
  await withDir((dir) => {
    const path = join(dir, "token");
    assert.equal(writeSecureFile(path, "secret-1"), true);
    assert.equal(Deno.readTextFileSync(path), "secret-1");
    if (POSIX) assert.equal(mode(path), 0o600);

    Deno.chmodSync(path, 0o644);
    writeSecureFile(path, new TextEncoder().encode("secret-2"));
    assert.equal(Deno.readTextFileSync(path), "secret-2");
    if (POSIX) assert.equal(mode(path), 0o600);

    assert.equal(writeSecureFile(path, "nope", { createNew: true }), false);
    assert.equal(Deno.readTextFileSync(path), "secret-2");
    assert.deepEqual(Array.from(Deno.readDirSync(dir)).map((e) => e.name), ["token"]);
  });
});

Deno.test("writeSecureFile leaves no temp file behind on failure", async () => {
  await withDir((dir) => {
    const target = join(dir, "sub");
    Deno.mkdirSync(target);
    Deno.writeTextFileSync(join(target, "x"), "");
    assert.throws(() => writeSecureFile(target, "data"));
    assert.deepEqual(Array.from(Deno.readDirSync(dir)).map((e) => e.name), ["sub"]);
  });
});

Deno.test("property: writeSecureFile round-trips arbitrary bytes", async () => {
  await withDir((dir) => {
    const path = join(dir, "blob");
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4096 }), (bytes) => {
        writeSecureFile(path, bytes);
        assert.deepEqual(Deno.readFileSync(path), bytes);
      }),
      { numRuns: 50 },
    );
  });
});

Deno.test("locateJsonError agrees with JSON.parse", () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.json(),
        fc.json().map((t) => t.slice(0, Math.max(0, t.length - 1))),
        fc.string(),
        fc.json().map((t) => t.replace(/,/, ",,")),
      ),
      (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        assert.equal(locateJsonError(text) === null, valid, JSON.stringify(text));
      },
    ),
    { numRuns: 500 },
  );
  assert.deepEqual(locateJsonError('{"a": 1,\n "b" 2}'), {
    offset: 14,
    line: 2,
    column: 6,
    reason: 'unexpected "2" (expected ":")',
  });
});
