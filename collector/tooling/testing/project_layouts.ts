/**
 * Test helper: the project layouts a hook launcher's fast path must file as the shim's project
 * detection does.
 *
 * @module
 */
import { resolveProject } from "@kiro-learn/core/project";
import { runGit } from "@kiro-learn/core/testing";

/**
 * Creates `${home}/${name}` as a git clone would leave it: a `.git` folder whose config names an
 * `origin` remote (the remote decides the project id; the launcher sends this file), and a `src`
 * folder. Returns the project's path.
 */
export async function gitProject(home: string, name: string): Promise<string> {
  const dir = `${home}/${name}`;
  await Deno.mkdir(`${dir}/.git`, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/.git/config`,
    `[remote "origin"]\n\turl = https://git.example.com/team/${name}.git\n`,
  );
  await Deno.mkdir(`${dir}/src`, { recursive: true });
  return dir;
}

/**
 * Creates `${root}/work/${name}` as a real git repository (`git init`, an `origin` remote, which
 * decides the project id): the projects the real clients' end-to-end tests work in. Returns its
 * path.
 */
export async function gitRepository(root: string, name: string): Promise<string> {
  const dir = `${root}/work/${name}`;
  await Deno.mkdir(dir, { recursive: true });
  await runGit(dir, "init", "-q");
  await runGit(dir, "remote", "add", "origin", `git@git.example.com:team/${name}.git`);
  return dir;
}

/** The folders {@linkcode projectLayouts} builds. */
export interface ProjectLayouts {
  /** A repository nested inside the project (`vendor/lib`). */
  nested: string;
  /** `${home}/link`, a symlink to the project. */
  link: string;
  /** A git worktree of the project: a folder whose `.git` is a file. */
  worktree: string;
  /** A repository in a temp folder outside `home`. */
  outsideProject: string;
  /** A home folder (outside `home`) that itself holds `.git`, with a `notes` folder. */
  gitHome: string;
  /** A home folder below `gitHome` (a home inside a repository), with a `notes` folder. */
  underGit: string;
  /**
   * Each layout's working folder with the `$HOME` a session there has (`home`, or the git home
   * itself), for the tests that walk them all.
   */
  cases: [cwd: string, home: string][];
  /** Removes the temp folders made outside `home`. */
  remove(): Promise<void>;
}

/**
 * Builds, around `project` (a {@linkcode gitProject} in `home`), the layouts a launcher meets: a
 * nested repository, a symlinked path, a git worktree (.git file), a folder outside $HOME, $HOME
 * itself holding .git, and a .git above $HOME.
 */
export async function projectLayouts(home: string, project: string): Promise<ProjectLayouts> {
  const nested = await gitProject(project, "vendor/lib");
  await Deno.symlink(project, `${home}/link`);
  const worktree = `${home}/wt`;
  await Deno.mkdir(worktree);
  await Deno.writeTextFile(`${worktree}/.git`, `gitdir: ${project}/.git/worktrees/wt\n`);
  await Deno.mkdir(`${project}/.git/worktrees/wt`, { recursive: true });
  await Deno.writeTextFile(`${project}/.git/worktrees/wt/commondir`, "../..\n");
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "kiro-learn-out-" }));
  const outsideProject = await gitProject(outside, "srv");
  const gitHome = await Deno.realPath(await Deno.makeTempDir({ prefix: "kiro-learn-home-" }));
  await Deno.mkdir(`${gitHome}/.git`);
  await Deno.writeTextFile(`${gitHome}/.git/config`, "[core]\n\tbare = false\n");
  await Deno.mkdir(`${gitHome}/notes`);
  // A .git above $HOME (a home inside a repository) decides nothing below $HOME.
  const underGit = `${gitHome}/users/ada`;
  await Deno.mkdir(`${underGit}/notes`, { recursive: true });
  const link = `${home}/link`;
  return {
    nested,
    link,
    worktree,
    outsideProject,
    gitHome,
    underGit,
    cases: [
      [nested, home],
      [`${link}/src`, home],
      [worktree, home],
      [`${outsideProject}/src`, home],
      [gitHome, gitHome],
      [`${gitHome}/notes`, gitHome],
      [`${underGit}/notes`, underGit],
    ],
    async remove() {
      await Deno.remove(outside, { recursive: true });
      await Deno.remove(gitHome, { recursive: true });
    },
  };
}

/** A real git checkout made by {@linkcode gitCheckout}. */
export interface GitCheckout {
  /** Its work tree. */
  dir: string;
  /** The project id kiro-learn gives it (from its remote): what `team join` prints. */
  projectId: string;
}

/**
 * A real checkout as a teammate has one: `git init` in `${parent}/${name}`, then
 * `git remote add origin <remote>`, both by the real `git`. Its project id comes from the remote,
 * so checkouts of one repository at different paths, by SSH or HTTPS, share it; without a remote
 * (`null`) it comes from the path.
 */
export async function gitCheckout(
  parent: string,
  name: string,
  remote: string | null,
): Promise<GitCheckout> {
  const dir = `${parent}/${name}`;
  await Deno.mkdir(dir, { recursive: true });
  await runGit(dir, "init", "-q");
  if (remote !== null) await runGit(dir, "remote", "add", "origin", remote);
  return { dir, projectId: resolveProject(dir).project_id };
}

/**
 * The project ids of real checkouts of `remotes` (made by {@linkcode gitCheckout} in a temporary
 * folder, removed again): the keys a team grants, for tests that need no work tree.
 */
export async function gitProjectIds(remotes: readonly (string | null)[]): Promise<string[]> {
  const root = await Deno.makeTempDir({ prefix: "kiro-learn-checkouts-" });
  try {
    const ids: string[] = [];
    for (const [i, remote] of remotes.entries()) {
      ids.push((await gitCheckout(root, `repo${i}`, remote)).projectId);
    }
    return ids;
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}
