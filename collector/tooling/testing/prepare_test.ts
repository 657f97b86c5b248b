import assert from "node:assert/strict";
import {
  APT_INSTALL,
  aptUpgrades,
  CHROMIUM_PACKAGE,
  CLAUDE_CODE,
  CLAUDE_CODE_ACP,
  CLAUDE_CODE_VERSION,
  claudeCodeBinary,
  CODEX_CLI,
  codexBinary,
  COPILOT_CLI,
  GEMINI_CLI,
  machineFacts,
  NPM_TOOLS,
  npmToolBin,
  npmToolDir,
  POSTGRES_PACKAGE,
  preparePlan,
  SIMULATE,
  upgradeRefusal,
} from "./prepare.ts";

const CLAUDE_DIR = npmToolDir(CLAUDE_CODE, { home: "/home/u" });
/** Chromium missing, every npm tool present: the Chromium cases below. */
const MISSING = {
  hasChromium: false,
  hasPostgres: true,
  hasAptGet: true,
  isRoot: false,
  hasPasswordlessSudo: false,
  missingTools: [],
  hasNpm: true,
  home: "/home/u",
  stagingSuffix: "42",
};
/** Everything present but Claude Code. */
const NO_CLAUDE = { ...MISSING, hasChromium: true, missingTools: [CLAUDE_CODE] };

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
  assert.equal(plan.commands.length, 3);
  assert.deepEqual(plan.commands[0].slice(0, 1), ["apt-get"]);
  assert.ok(plan.commands[0].includes("update"));
  assert.deepEqual(plan.commands[2].slice(-2), ["-qq", CHROMIUM_PACKAGE]);
  assert.ok(plan.commands.every((c) => c.includes("DPkg::Lock::Timeout=600")));
});

Deno.test("preparePlan: apt installs only what the packages need, after a dry run, and upgrades nothing", () => {
  for (const facts of [{ isRoot: true }, { hasPasswordlessSudo: true }, { hasPostgres: false }]) {
    const plan = preparePlan({ ...MISSING, isRoot: true, ...facts });
    assert.equal(plan.kind, "install");
    if (plan.kind !== "install") return;
    const [update, dry, install] = plan.commands;
    assert.ok(update.includes("update"));
    // The dry run and the install are the same request, the install only after the check.
    assert.deepEqual(dry.filter((a) => a !== SIMULATE), install.filter((a) => !/^-y|^-qq/.test(a)));
    assert.ok(dry.includes(SIMULATE));
    for (const command of [dry, install]) {
      const at = command.indexOf("install");
      assert.deepEqual(command.slice(at, at + APT_INSTALL.length), [...APT_INSTALL]);
      assert.ok(command.includes("--no-install-recommends"), command.join(" "));
    }
    // Nothing that upgrades: no upgrade verb, no dist-upgrade, no --only-upgrade, no -f.
    for (const command of plan.commands) {
      for (const arg of command) {
        assert.doesNotMatch(arg, /^(upgrade|dist-upgrade|full-upgrade)$|only-upgrade|^-f$/);
      }
    }
  }
  const blocked = preparePlan(MISSING);
  assert.equal(blocked.kind, "blocked");
  if (blocked.kind === "blocked") {
    assert.match(blocked.message, /sudo apt-get install -y --no-install-recommends chromium`/);
  }
});

const SIMULATION = new URL("./testdata/", import.meta.url);

Deno.test("aptUpgrades: the upgrades of a real dry run, and none without the recommends", () => {
  // Both recorded on Debian 12 with `apt-get install --simulate [--no-install-recommends
  // --no-upgrade] chromium` against this machine's package state from before the suite's first
  // run installed Chromium (its apt history: 115 packages installed, 15 upgraded).
  const recommends = Deno.readTextFileSync(
    new URL("apt_simulate_chromium_recommends.txt", SIMULATION),
  );
  const upgrades = aptUpgrades(recommends);
  assert.equal(upgrades.length, 15);
  const names = upgrades.map((u) => u.name);
  for (const name of ["perl", "perl-base", "systemd", "libudev1", "libsystemd0"]) {
    assert.ok(names.includes(name), name);
  }
  assert.deepEqual(upgrades.find((u) => u.name === "systemd"), {
    name: "systemd",
    from: "252.38-1~deb12u1",
    to: "252.39-1~deb12u2",
  });
  assert.ok(!names.includes("chromium"), "a new package is not an upgrade");
  const needed = Deno.readTextFileSync(
    new URL("apt_simulate_chromium_no_recommends.txt", SIMULATION),
  );
  assert.deepEqual(aptUpgrades(needed), []);
  assert.equal(needed.match(/^Inst /gm)?.length, 25, "Chromium and what it depends on");
  const said = upgradeRefusal([CHROMIUM_PACKAGE], upgrades);
  assert.match(said, /would also upgrade 15 installed package\(s\) \(libperl5\.36 /);
  assert.match(said, /and 7 more\); .* upgrades nothing/);
  assert.match(said, /sudo apt-get install --no-install-recommends chromium`/);
});

Deno.test("preparePlan: PostgreSQL missing is installed the same way, with Chromium in one go", () => {
  const plan = preparePlan({ ...MISSING, hasPostgres: false, isRoot: true });
  assert.equal(plan.kind, "install");
  if (plan.kind !== "install") return;
  assert.deepEqual(plan.commands[2].slice(-3), ["-qq", CHROMIUM_PACKAGE, POSTGRES_PACKAGE]);
  const blocked = preparePlan({ ...MISSING, hasChromium: true, hasPostgres: false });
  assert.equal(blocked.kind, "blocked");
  if (blocked.kind === "blocked") {
    assert.match(blocked.message, /PostgreSQL 15 is missing .* needs root/);
    assert.match(blocked.message, /sudo apt-get install -y --no-install-recommends postgresql`/);
  }
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
    assert.match(noRoot.message, /sudo apt-get install -y --no-install-recommends chromium/);
  }
  const noApt = preparePlan({ ...MISSING, isRoot: true, hasAptGet: false });
  assert.equal(noApt.kind, "blocked");
  if (noApt.kind === "blocked") assert.match(noApt.message, /no apt-get/);
});

Deno.test("preparePlan: a missing Claude Code is installed with npm at the pinned version, staged then moved in", () => {
  const plan = preparePlan(NO_CLAUDE);
  assert.equal(plan.kind, "install");
  if (plan.kind !== "install") return;
  const staging = `${CLAUDE_DIR}.partial-42`;
  assert.deepEqual(plan.commands, [
    [
      "npm",
      "install",
      "--prefix",
      staging,
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      `${CLAUDE_CODE.name}@${CLAUDE_CODE_VERSION}`,
    ],
    ["mv", "-T", staging, CLAUDE_DIR],
  ]);
  assert.equal(plan.notes.length, 1);
  assert.match(plan.notes[0], new RegExp(`claude-code@${CLAUDE_CODE_VERSION} is missing`));
  // It needs neither root nor apt: npm installs into the user's cache.
  assert.equal(preparePlan({ ...NO_CLAUDE, hasAptGet: false }).kind, "install");
});

Deno.test("preparePlan: the version is pinned exactly, and the install folder is per version", () => {
  assert.match(CLAUDE_CODE_VERSION, /^\d+\.\d+\.\d+$/);
  assert.equal(
    claudeCodeBinary({ home: "/h" }),
    `/h/.cache/kiro-learn-test/npm/@anthropic-ai+claude-code@${CLAUDE_CODE_VERSION}` +
      "/node_modules/.bin/claude",
  );
  assert.throws(() => npmToolDir(CLAUDE_CODE, { home: "" }), /HOME is not set/);
});

Deno.test("preparePlan: both missing installs Chromium first, then Claude Code", () => {
  const plan = preparePlan({ ...NO_CLAUDE, hasChromium: false, isRoot: true });
  assert.equal(plan.kind, "install");
  if (plan.kind !== "install") return;
  assert.deepEqual(plan.commands.map((c) => c[0]), ["apt-get", "apt-get", "apt-get", "npm", "mv"]);
  assert.equal(plan.notes.length, 2);
});

Deno.test("preparePlan: no npm says what to run; with Chromium blocked too, both reasons are told", () => {
  const noNpm = preparePlan({ ...NO_CLAUDE, hasNpm: false });
  assert.equal(noNpm.kind, "blocked");
  if (noNpm.kind === "blocked") {
    assert.match(noNpm.message, /npm is not on the PATH/);
    assert.ok(noNpm.message.includes(`npm install --prefix ${CLAUDE_DIR}`), noNpm.message);
  }
  const both = preparePlan({ ...NO_CLAUDE, hasNpm: false, hasChromium: false });
  assert.equal(both.kind, "blocked");
  if (both.kind === "blocked") {
    assert.match(both.message, /Chromium is missing.*needs root/);
    assert.match(both.message, /npm is not on the PATH/);
  }
});

Deno.test("machineFacts reads this machine: the suite's own run found Chromium and Claude Code in place", async () => {
  // `deno task test` runs prepare.ts before the tests, so by now both are there.
  const facts = await machineFacts();
  assert.equal(facts.hasChromium, true);
  assert.equal(facts.hasPostgres, true);
  assert.deepEqual(facts.missingTools, [], "every npm tool is installed: run `deno task test`");
  assert.deepEqual(preparePlan(facts), { kind: "ready" });
});

Deno.test("npm tools: each pinned to an exact version, in a folder of its own, installed the same way", () => {
  assert.deepEqual(NPM_TOOLS, [CLAUDE_CODE, CLAUDE_CODE_ACP, CODEX_CLI, GEMINI_CLI, COPILOT_CLI]);
  for (const tool of NPM_TOOLS) assert.match(tool.version, /^\d+\.\d+\.\d+$/);
  assert.equal(
    npmToolBin(CLAUDE_CODE_ACP, { home: "/h" }),
    "/h/.cache/kiro-learn-test/npm/@zed-industries+claude-code-acp@0.16.2/node_modules/.bin/" +
      "claude-code-acp",
  );
  const plan = preparePlan({ ...MISSING, hasChromium: true, missingTools: [...NPM_TOOLS] });
  assert.equal(plan.kind, "install");
  if (plan.kind !== "install") return;
  assert.deepEqual(plan.commands.map((c) => c[0]), [
    "npm",
    "mv",
    "npm",
    "mv",
    "npm",
    "mv",
    "npm",
    "mv",
    "npm",
    "mv",
  ]);
  assert.equal(plan.commands[2].at(-1), "@zed-industries/claude-code-acp@0.16.2");
  assert.equal(plan.commands[4].at(-1), "@openai/codex@0.171.0");
  assert.equal(
    codexBinary({ home: "/h" }),
    "/h/.cache/kiro-learn-test/npm/@openai+codex@0.171.0/node_modules/.bin/codex",
  );
  assert.equal(plan.commands[6].at(-1), "@google/gemini-cli@0.61.0");
  assert.equal(plan.commands[8].at(-1), "@github/copilot@1.0.102");
});

Deno.test("the suite's own run installed every npm tool", () => {
  for (const tool of NPM_TOOLS) {
    assert.ok(Deno.statSync(npmToolBin(tool)).isFile, `${tool.name} is missing`);
  }
});
