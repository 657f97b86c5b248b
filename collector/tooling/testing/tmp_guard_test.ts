import assert from "node:assert/strict";
import { leftReport, runWithPrivateTmp, SUITE_TMP_MODE, SUITE_TMP_PREFIX } from "./tmp_guard.ts";

const GUARD = new URL("./tmp_guard.ts", import.meta.url).pathname;

/** A `deno eval` of `code`, as the guard runs it. */
function denoEval(code: string): string[] {
  return ["deno", "eval", "--quiet", code];
}

Deno.test("the guard fails a command that leaves a temp dir behind, names it, and removes it", async () => {
  const parent = await Deno.makeTempDir({ prefix: "kiro-learn-guard-" });
  try {
    const run = await runWithPrivateTmp(
      denoEval(
        `const d = Deno.makeTempDirSync({ prefix: "leaky-" });` +
          `Deno.writeTextFileSync(d + "/state.json", "{}");` +
          `Deno.writeTextFileSync(Deno.env.get("TMPDIR") + "/mat-debug-1.log", "");`,
      ),
      { parentDir: parent },
    );
    assert.equal(run.code, 1);
    assert.equal(run.left.length, 2, run.left.join(", "));
    assert.match(run.left[0], /^leaky-[0-9a-f]+\/ \(state\.json\)$/);
    assert.equal(run.left[1], "mat-debug-1.log");
    assert.match(leftReport(run.left), /left 2 entries in its temp dir[^]*leaky-[^]*mat-debug-1/);
    assert.deepEqual([...Deno.readDirSync(parent)], [], "the private temp dir is gone");
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("the guard passes a clean command and keeps a failing one's exit code", async () => {
  const parent = await Deno.makeTempDir({ prefix: "kiro-learn-guard-" });
  try {
    const clean = await runWithPrivateTmp(
      denoEval(
        `const d = Deno.makeTempDirSync(); Deno.removeSync(d);` +
          `if (!Deno.env.get("TMPDIR").includes("${SUITE_TMP_PREFIX}")) Deno.exit(3);`,
      ),
      { parentDir: parent },
    );
    assert.deepEqual(clean, { code: 0, left: [] });
    const failing = await runWithPrivateTmp(
      denoEval(`Deno.makeTempDirSync(); Deno.exit(7);`),
      { parentDir: parent },
    );
    assert.equal(failing.code, 7, "the suite's own failure wins");
    assert.equal(failing.left.length, 1);
    assert.deepEqual([...Deno.readDirSync(parent)], []);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("run as the test command does, the guard prints what was left and exits non-zero", async () => {
  const parent = await Deno.makeTempDir({ prefix: "kiro-learn-guard-" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", GUARD, ...denoEval(`Deno.makeTempFileSync({ prefix: "forgotten-" });`)],
      env: { TMPDIR: parent },
      stdin: "null",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 1, stderr);
    assert.match(stderr, /FAILED the suite left 1 entry in its temp dir[^]*\n {2}forgotten-/);
    assert.deepEqual([...Deno.readDirSync(parent)], []);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("the guard's temp dir leaves a test's data dir room for its Unix socket, and lets other users through", async () => {
  // What a sandboxed test makes below it (agentSandbox: <prefix><16 hex>/home/.kiro-learn/…),
  // bound as the collector binds its sockets: a Unix socket path holds at most 107 bytes.
  const run = await runWithPrivateTmp(
    denoEval(
      `const tmp = Deno.env.get("TMPDIR");` +
        `const mode = Deno.statSync(tmp).mode & 0o777;` +
        `if (mode !== ${SUITE_TMP_MODE}) { console.error("mode", mode.toString(8)); Deno.exit(4); }` +
        `if (Deno.env.get("ORT_DISABLE_TELEMETRY") !== "1") Deno.exit(5);` +
        `const root = Deno.makeTempDirSync({ prefix: "kiro-learn-gemini-cli-e2e-" });` +
        `const dir = root + "/home/.kiro-learn"; Deno.mkdirSync(dir, { recursive: true });` +
        `Deno.listen({ transport: "unix", path: dir + "/collector-tcp.sock" }).close();` +
        `Deno.removeSync(root, { recursive: true });`,
    ),
    { parentDir: "/tmp" },
  );
  assert.deepEqual(run, { code: 0, left: [] });
});
