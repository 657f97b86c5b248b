import assert from "node:assert/strict";
import {
  agentPidFromArgs,
  agentProcess,
  kiroSessionId,
  parseStat,
  validSessionId,
} from "./session.ts";

function fakeProc(table: Record<number, string>) {
  return (path: string) => {
    const pid = Number(/^\/proc\/(\d+)\/stat$/.exec(path)?.[1]);
    return table[pid] ?? null;
  };
}

function stat(pid: number, comm: string, ppid: number, start: number): string {
  const rest = Array.from({ length: 17 }, (_, i) => String(i));
  return `${pid} (${comm}) S ${ppid} ${rest.join(" ")} ${start} 0 0`;
}

Deno.test("KIRO_SESSION_ID wins when set", () => {
  assert.equal(kiroSessionId({ env: { KIRO_SESSION_ID: " abc-123 " } }), "abc-123");
  assert.equal(kiroSessionId({ env: { KIRO_SESSION_ID: "x".repeat(300) } }).length, 128);
});

Deno.test("parseStat handles command names with spaces and parentheses", () => {
  const parsed = parseStat(stat(42, "kiro cli (chat)", 7, 987654));
  assert.deepEqual(parsed, { comm: "kiro cli (chat)", ppid: 7, startTicks: "987654" });
  assert.equal(parseStat("garbage"), null);
  assert.equal(parseStat(null), null);
});

Deno.test("with /proc, shells between the agent and the shim are skipped", () => {
  const proc = fakeProc({
    300: stat(300, "bash", 200, 5000),
    200: stat(200, "kiro-cli-chat", 1, 4000),
  });
  assert.deepEqual(agentProcess(300, proc), { pid: 200, startTicks: "4000" });
  const a = kiroSessionId({ env: {}, ppid: 300, readProc: proc, hostname: "h" });
  // Another hook of the same agent (a new shell each time) gets the same id.
  const proc2 = fakeProc({
    301: stat(301, "sh", 200, 5100),
    200: stat(200, "kiro-cli-chat", 1, 4000),
  });
  assert.equal(kiroSessionId({ env: {}, ppid: 301, readProc: proc2, hostname: "h" }), a);
  // A different agent process (or the same pid reused later) gets another.
  const proc3 = fakeProc({
    300: stat(300, "bash", 200, 5000),
    200: stat(200, "kiro-cli-chat", 1, 4001),
  });
  assert.notEqual(kiroSessionId({ env: {}, ppid: 300, readProc: proc3, hostname: "h" }), a);
  assert.match(a, /^kiro-[0-9a-f]{32}$/);
});

Deno.test("without /proc, the id is the parent pid and the local date", () => {
  const none = () => null;
  const day1 = new Date(2026, 0, 5, 10, 0);
  const day1Later = new Date(2026, 0, 5, 23, 59);
  const day2 = new Date(2026, 0, 6, 0, 1);
  const id = kiroSessionId({ env: {}, ppid: 4242, readProc: none, now: day1, hostname: "h" });
  assert.equal(
    kiroSessionId({ env: {}, ppid: 4242, readProc: none, now: day1Later, hostname: "h" }),
    id,
  );
  assert.notEqual(
    kiroSessionId({ env: {}, ppid: 4242, readProc: none, now: day2, hostname: "h" }),
    id,
  );
  assert.notEqual(
    kiroSessionId({ env: {}, ppid: 4243, readProc: none, now: day1, hostname: "h" }),
    id,
  );
});

Deno.test("validSessionId rejects empty and control characters", () => {
  assert.equal(validSessionId(""), null);
  assert.equal(validSessionId("  "), null);
  assert.equal(validSessionId("a\nb"), null);
  assert.equal(validSessionId(42), null);
  assert.equal(validSessionId("3f2b8a6e-1c4d"), "3f2b8a6e-1c4d");
});

Deno.test("nothing is written anywhere to derive a session id", async () => {
  const tmpBefore = [...Deno.readDirSync("/tmp")].map((e) => e.name).filter((n) =>
    n.includes("kiro-learn-session")
  );
  kiroSessionId({ env: {} });
  const tmpAfter = [...Deno.readDirSync("/tmp")].map((e) => e.name).filter((n) =>
    n.includes("kiro-learn-session")
  );
  assert.deepEqual(tmpAfter, tmpBefore);
  await Promise.resolve();
});

Deno.test("--agent-pid (the hook shell's $PPID) stands in for the parent pid", () => {
  const none = () => null;
  const now = new Date(2026, 0, 5);
  const viaArg = kiroSessionId({
    env: {},
    ppid: 999,
    agentPid: 4242,
    readProc: none,
    now,
    hostname: "h",
  });
  const viaExec = kiroSessionId({ env: {}, ppid: 4242, readProc: none, now, hostname: "h" });
  assert.equal(viaArg, viaExec);
  assert.equal(agentPidFromArgs(["promptSubmit", "--agent-pid=4242"]), 4242);
  assert.equal(agentPidFromArgs(["--agent-pid=$PPID"]), undefined);
  assert.equal(agentPidFromArgs(["--agent-pid=1"]), undefined);
  assert.equal(agentPidFromArgs([]), undefined);
});
