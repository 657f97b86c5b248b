import assert from "node:assert/strict";
import { linkCli } from "./link.ts";

const decode = (out: Deno.CommandOutput) =>
  new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);

Deno.test("linkCli says whether the launcher's folder is on PATH", async () => {
  const bin = await Deno.makeTempDir();
  try {
    assert.equal(linkCli(bin, { path: `/usr/bin:${bin}/` }).onPath, true);
    assert.equal(linkCli(bin, { path: "/usr/bin:/bin" }).onPath, false);
    assert.equal(Deno.statSync(`${bin}/kiro-learn`).mode! & 0o777, 0o755);
  } finally {
    await Deno.remove(bin, { recursive: true });
  }
});

Deno.test("kiro-learn on PATH: install --dry-run from another folder plans for that folder's project", async () => {
  const home = await Deno.makeTempDir({ prefix: "kiro-learn-home-" });
  const project = await Deno.makeTempDir({ prefix: "kiro-learn-billing-" });
  await Deno.mkdir(`${project}/.git`);
  await Deno.mkdir(`${project}/src/lib`, { recursive: true });
  try {
    const { path } = linkCli(`${home}/.local/bin`);
    // A user's shell: the launcher found on PATH, run from a subfolder of the project.
    const env = {
      PATH: `${home}/.local/bin:/usr/bin:/bin`,
      HOME: home,
      KIRO_LEARN_HOME: `${home}/.kiro-learn`,
    };
    const out = await new Deno.Command("kiro-learn", {
      args: ["install", "--dry-run"],
      cwd: `${project}/src/lib`,
      clearEnv: true,
      env,
    }).output();
    assert.equal(out.code, 0, decode(out));
    assert.ok(decode(out).includes(`${project}/.kiro/hooks/kiro-learn.json`), decode(out));
    assert.ok(path.startsWith(home));
    // Every other command is there too, with its usage errors.
    const bad = await new Deno.Command("kiro-learn", {
      args: ["no-such-command"],
      cwd: project,
      clearEnv: true,
      env,
    }).output();
    assert.equal(bad.code, 2, decode(bad));
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(project, { recursive: true });
  }
});

Deno.test("--project DIR acts on that project from anywhere; a missing folder is a usage error", async () => {
  const home = await Deno.makeTempDir({ prefix: "kiro-learn-home-" });
  const project = await Deno.makeTempDir({ prefix: "kiro-learn-orders-" });
  await Deno.mkdir(`${project}/.git`);
  try {
    const { path } = linkCli(`${home}/.local/bin`);
    const env = { PATH: "/usr/bin:/bin", HOME: home, KIRO_LEARN_HOME: `${home}/.kiro-learn` };
    const run = (args: string[]) =>
      new Deno.Command(path, { args, cwd: home, clearEnv: true, env }).output();
    const plan = await run(["install", "--dry-run", "--project", project]);
    assert.equal(plan.code, 0, decode(plan));
    assert.ok(decode(plan).includes(`${project}/.kiro/hooks/kiro-learn.json`), decode(plan));
    const missing = await run(["install", "--dry-run", "--project", `${home}/nope`]);
    assert.equal(missing.code, 2);
    assert.match(decode(missing), /--project .*nope: no such folder/);
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(project, { recursive: true });
  }
});
