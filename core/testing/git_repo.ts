/**
 * Real git in tests: one way to run it with no system or user config (so a developer's
 * `insteadOf`, hooks or default branch never change an outcome), and a repository with one
 * commit to clone from.
 *
 * @module
 */
import { resolveProject } from "../project/mod.ts";

/** Runs `git args…` in `cwd` with an empty config; returns stdout, throws with stderr. */
export async function runGit(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", ...args],
    cwd,
    stdout: "piped",
    stderr: "piped",
    env: { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  }).output();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout).trim();
}

/** Creates `dir` as a repository with one commit (a README); returns `dir`. */
export async function seedRepo(dir: string): Promise<string> {
  await Deno.mkdir(dir, { recursive: true });
  await runGit(dir, "init", "-q");
  await Deno.writeTextFile(`${dir}/README`, "seed\n");
  await runGit(dir, "add", "README");
  await runGit(dir, "commit", "-q", "-m", "seed");
  return dir;
}

/**
 * A real repository at `${parent}/${name}` (`git init`, `git remote add origin <remote>`) and the
 * project id kiro-learn gives it (`core/project/identity.ts`): `git-` and the digest of the
 * normalized remote, the same on every machine whatever the checkout's path or URL form.
 */
export async function gitRemoteProject(
  parent: string,
  name: string,
  options: { remote: string },
): Promise<{ dir: string; projectId: string }> {
  const dir = `${parent}/${name}`;
  await Deno.mkdir(dir, { recursive: true });
  await runGit(dir, "init", "-q");
  await runGit(dir, "remote", "add", "origin", options.remote);
  return { dir, projectId: resolveProject(dir, { home: parent }).project_id };
}
