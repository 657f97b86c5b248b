// The README's first steps on a machine that has nothing: a fresh clone, an empty HOME, an empty
// Deno cache and an empty npm cache (the registry is allowed: that is how a user gets Deno).
// `npx -y deno@<pinned> task kiro-learn link` from the clone, then `kiro-learn install --dry-run`
// from a subfolder of another project, found on PATH: the plan must name that project.
import assert from "node:assert/strict";
import { REPO_ROOT } from "@kiro-learn/core/launch";

const decode = (out: Deno.CommandOutput) =>
  new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);

Deno.test("fresh machine: the README's link step, then kiro-learn on PATH plans for the user's project", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "kiro-learn-fresh-" }));
  const home = `${root}/home`;
  const clone = `${root}/kiro-learn`;
  const project = `${home}/projects/shop-api`;
  await Deno.mkdir(`${project}/.git`, { recursive: true });
  await Deno.mkdir(`${project}/src/api`, { recursive: true });
  // The machine's network setup (proxies, extra CA certificates) is not the user's HOME: keep it.
  const network = Object.fromEntries(
    Object.entries(Deno.env.toObject()).filter(([name]) =>
      /proxy|cert|ca_bundle|ssl|tls/i.test(name)
    ),
  );
  const env = {
    ...network,
    HOME: home,
    PATH: `${home}/.local/bin:/usr/local/bin:/usr/bin:/bin`,
    DENO_DIR: `${home}/.cache/deno`,
    npm_config_cache: `${home}/.npm`,
  };
  try {
    const cloned = await new Deno.Command("git", {
      args: ["clone", "--quiet", "--no-hardlinks", REPO_ROOT, clone],
    }).output();
    assert.equal(cloned.code, 0, decode(cloned));
    const version = (await Deno.readTextFile(`${clone}/.deno-version`)).trim();

    const link = await new Deno.Command("npx", {
      args: ["-y", `deno@${version}`, "task", "kiro-learn", "link"],
      cwd: clone,
      clearEnv: true,
      env,
    }).output();
    assert.equal(link.code, 0, decode(link));
    assert.match(decode(link), new RegExp(`wrote ${home}/\\.local/bin/kiro-learn`));

    const plan = await new Deno.Command("kiro-learn", {
      args: ["install", "--dry-run"],
      cwd: `${project}/src/api`,
      clearEnv: true,
      env,
    }).output();
    assert.equal(plan.code, 0, decode(plan));
    assert.match(decode(plan), /~\/projects\/shop-api\/\.kiro\/hooks\/kiro-learn\.json/);
    assert.doesNotMatch(decode(plan), new RegExp(`${clone}/\\.kiro`), "nothing in the checkout");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
