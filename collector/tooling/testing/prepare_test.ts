import assert from "node:assert/strict";
import {
  CHROMIUM_PACKAGE,
  CLAUDE_CODE_ACP,
  machineFacts,
  NPM_TOOLS,
  npmInstallCommand,
  npmToolBin,
  preparePlan,
} from "./prepare.ts";

const MISSING = { hasChromium: false, hasAptGet: true, isRoot: false, hasPasswordlessSudo: false };

Deno.test("preparePlan: Chromium present means nothing to do, whoever runs it", () => {
  assert.deepEqual(preparePlan({ ...MISSING, hasChromium: true }), { kind: "ready" });
  assert.deepEqual(preparePlan({ ...MISSING, hasChromium: true, hasAptGet: false }), {
    kind: "ready",
  });
});

Deno.test("preparePlan: as root, apt-get update then install, with a lock timeout", () => {
  const plan = preparePlan({ ...MISSING, isRoot: true });
  assert.equal(plan.kind, "install");
  if (plan.kind !== "install") return;
  assert.equal(plan.commands.length, 2);
  assert.deepEqual(plan.commands[0].slice(0, 1), ["apt-get"]);
  assert.ok(plan.commands[0].includes("update"));
  assert.deepEqual(plan.commands[1].slice(-2), ["-qq", CHROMIUM_PACKAGE]);
  assert.ok(plan.commands.every((c) => c.includes("DPkg::Lock::Timeout=600")));
});

Deno.test("preparePlan: a user with password-less sudo installs through sudo -n", () => {
  const plan = preparePlan({ ...MISSING, hasPasswordlessSudo: true });
  assert.equal(plan.kind, "install");
  if (plan.kind !== "install") return;
  assert.ok(plan.commands.every((c) => c[0] === "sudo" && c[1] === "-n"));
});

Deno.test("preparePlan: no way to install says what to run, never installs", () => {
  const noRoot = preparePlan(MISSING);
  assert.equal(noRoot.kind, "blocked");
  if (noRoot.kind === "blocked") {
    assert.match(noRoot.message, /needs root/);
    assert.match(noRoot.message, /sudo apt-get install -y chromium/);
  }
  const noApt = preparePlan({ ...MISSING, isRoot: true, hasAptGet: false });
  assert.equal(noApt.kind, "blocked");
  if (noApt.kind === "blocked") assert.match(noApt.message, /no apt-get/);
});

Deno.test("machineFacts reads this machine: the suite's own run found Chromium in place", async () => {
  // `deno task test` runs prepare.ts before the tests, so by now the browser is there.
  const facts = await machineFacts();
  assert.equal(facts.hasChromium, true);
  assert.deepEqual(preparePlan(facts), { kind: "ready" });
});

Deno.test("npm tools: each pinned to an exact version, in a folder of its own", () => {
  assert.ok(NPM_TOOLS.includes(CLAUDE_CODE_ACP));
  for (const tool of NPM_TOOLS) assert.match(tool.version, /^\d+\.\d+\.\d+$/);
  assert.equal(
    npmToolBin(CLAUDE_CODE_ACP, { home: "/h" }),
    "/h/.cache/kiro-learn-test/npm/@zed-industries+claude-code-acp@0.16.2/node_modules/.bin/" +
      "claude-code-acp",
  );
  const command = npmInstallCommand(CLAUDE_CODE_ACP, { home: "/h" });
  assert.deepEqual(command.slice(0, 4), [
    "npm",
    "install",
    "--prefix",
    "/h/.cache/kiro-learn-test/npm/@zed-industries+claude-code-acp@0.16.2",
  ]);
  assert.equal(command.at(-1), "@zed-industries/claude-code-acp@0.16.2");
});

Deno.test("the suite's own run installed every npm tool", () => {
  for (const tool of NPM_TOOLS) {
    assert.ok(Deno.statSync(npmToolBin(tool)).isFile, `${tool.name} is missing`);
  }
});
