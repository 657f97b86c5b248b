/**
 * Project identity: the one place that turns a working directory into a project root, a
 * project id and a namespace. Shims, the MCP server and the installer all call this, so
 * hook-captured memories and MCP searches always land in the same namespace (kiro-learn
 * spec §13 item 18).
 *
 * @module
 */

import { envGet, type EnvLike } from "../env.ts";
import { dirname, isAbsolute, isInside, join, resolve, sep } from "../path.ts";
import { NAMESPACE_PATTERN } from "../schemas/limits.ts";
import { sha256Hex } from "./sha256.ts";
import { chooseRemote, type GitRemote } from "./_git_remote.ts";

export type { GitRemote };

/**
 * Files or folders that mark a project root, in priority order. The nearest folder holding
 * any of them wins. This is the single source of truth: the installer imports it too.
 */
export const PROJECT_MARKERS: readonly string[] = Object.freeze([
  ".kiro",
  "package.json",
  "Cargo.toml",
  "pyproject.toml",
  "setup.py",
  "go.mod",
  "pom.xml",
  "build.gradle",
  "build.gradle.kts",
  "Gemfile",
  "composer.json",
  "mix.exs",
  "deno.json",
  "deno.jsonc",
]);

/**
 * Prefix of a project id derived from a git remote. Path-derived ids are bare 64-hex digests, so
 * the two kinds can never collide, and a reader (the collector's migration, `status`) can tell
 * them apart.
 */
export const REMOTE_PROJECT_ID_PREFIX = "git-";

/**
 * The grammar of every project id kiro-learn writes (a path digest, or a remote digest with its
 * prefix), as regular-expression source that JavaScript and PostgreSQL read alike: the team
 * database's check on project keys is this very text (team migration 2), so the key `team join`
 * prints is exactly what a grant accepts.
 */
export const PROJECT_ID_GRAMMAR = `^(?:${REMOTE_PROJECT_ID_PREFIX})?[0-9a-f]{64}$`;

/** Every project id kiro-learn writes: {@linkcode PROJECT_ID_GRAMMAR}. */
export const PROJECT_ID_PATTERN: RegExp = new RegExp(PROJECT_ID_GRAMMAR);

/** Longest actor segment we keep; longer names are cut to this many characters. */
export const MAX_ACTOR_LENGTH = 128;

/** The resolved identity of the project a working directory belongs to. */
export interface ProjectIdentity {
  /** Absolute, realpath'd project root (the home directory for the global scope). */
  project_root: string;
  /**
   * `git-` + hex SHA-256 of the normalized remote URL when the root is a git repository with a
   * remote (the same on every machine and in every clone), else hex SHA-256 of `project_root`.
   */
  project_id: string;
  /** Where `project_id` comes from. */
  id_source: "git-remote" | "path";
  /** The remote `project_id` comes from (credential-free), when `id_source` is `git-remote`. */
  remote?: GitRemote;
  /** `/actor/<actor>/project/<project_id>/`. */
  namespace: string;
  /** Human-friendly root: `~/code/app`, `~ (global)`, or the absolute path. */
  display_name: string;
  /** True when the cwd belongs to no project below `$HOME` (or is `$HOME` itself). */
  is_global: boolean;
}

/** Options for {@linkcode resolveProject}. */
export interface ResolveProjectOptions {
  /** Home directory; defaults to `$HOME` (or `$USERPROFILE`). */
  home?: string;
  /** Actor for the namespace; defaults to {@linkcode currentActor}. */
  actor?: string;
}

/**
 * Resolve the project a working directory belongs to.
 *
 * Root: git repository root (a worktree maps to its main repository), then the nearest
 * {@linkcode PROJECT_MARKERS} folder. Below `$HOME` the walk never inspects `$HOME` itself,
 * and finding nothing means the global scope. Outside `$HOME` finding nothing means the cwd
 * itself is the project, so unrelated folders never share one pool.
 *
 * Id: a git root whose config names a remote (`origin`, else the first in the file) gets
 * {@linkcode projectIdFromRemote} of it, so clones of one repository agree across paths and
 * machines; anything else (no remote, no git, the global scope) gets
 * {@linkcode projectIdFromRoot}, the id every project had before remotes counted.
 */
export function resolveProject(cwd: string, options: ResolveProjectOptions = {}): ProjectIdentity {
  const dir = realPathOr(resolve(cwd));
  const rawHome = options.home ?? envGet(undefined, "HOME") ?? envGet(undefined, "USERPROFILE");
  let home = rawHome ? realPathOr(resolve(rawHome)) : undefined;
  // A home of "/" (seen in some containers) would put every path "inside home" and turn the
  // whole machine into the global scope, so treat it as having no home at all.
  if (home !== undefined && isFsRoot(home)) home = undefined;

  const actor = options.actor === undefined ? currentActor() : sanitizeActor(options.actor);
  const insideHome = home !== undefined && isInside(dir, home);

  if (home !== undefined && dir === home) return identity(home, home, actor, true);

  const candidates = ancestors(dir, insideHome ? home : undefined);
  const git = findGitRoot(candidates, home);
  if (git !== undefined) {
    const config = git.gitDir === undefined ? null : readTextOrNull(join(git.gitDir, "config"));
    return identity(git.root, home, actor, false, remoteOf(config, git.root));
  }
  const root = findMarkerRoot(candidates);
  if (root !== undefined) return identity(root, home, actor, false);
  if (insideHome) return identity(home!, home, actor, true);
  return identity(dir, home, actor, false);
}

/**
 * The actor of this process: `USER`, then `USERNAME`, then `LOGNAME`, then `"unknown"`,
 * sanitized so it is a valid namespace segment.
 */
export function currentActor(env?: EnvLike): string {
  for (const key of ["USER", "USERNAME", "LOGNAME"]) {
    const value = envGet(env, key);
    if (value && value.trim() !== "") return sanitizeActor(value);
  }
  return "unknown";
}

/**
 * Make an arbitrary string safe as the actor segment of a namespace: no `/`, no control
 * characters, 1–128 characters (empty input becomes `"unknown"`).
 */
export function sanitizeActor(actor: string): string {
  // deno-lint-ignore no-control-regex
  const cleaned = actor.trim().replace(/[/\\\u0000-\u001f\u007f]/g, "_");
  if (cleaned === "") return "unknown";
  return Array.from(cleaned).slice(0, MAX_ACTOR_LENGTH).join("");
}

/** Hex SHA-256 of a project root path: the project id when no remote decides it. */
export function projectIdFromRoot(projectRoot: string): string {
  return sha256Hex(projectRoot);
}

/**
 * The project id of the git repository whose work tree is `root` and whose config file reads
 * `configText` (`null`: no config): its remote's, else its path's — as {@linkcode resolveProject}
 * decides it. For a process that cannot read the repository itself (the collector, handed the
 * config by a hook's launcher).
 */
export function projectIdFromGitConfig(configText: string | null, root: string): string {
  return projectIdOf(root, remoteOf(configText, root));
}

// The one place that chooses between the two kinds of id.
function projectIdOf(root: string, remote: GitRemote | undefined): string {
  return remote === undefined ? projectIdFromRoot(root) : projectIdFromRemote(remote.url);
}

function remoteOf(configText: string | null, root: string): GitRemote | undefined {
  return (configText === null ? null : chooseRemote(configText, { base: root })) ?? undefined;
}

/** The project id of a repository whose normalized remote URL is `normalizedUrl`. */
export function projectIdFromRemote(normalizedUrl: string): string {
  return REMOTE_PROJECT_ID_PREFIX + sha256Hex(normalizedUrl);
}

/**
 * The namespace the same actor's project at `projectPath` had before remotes decided project
 * ids, when `namespace` is remote-derived and differs from it; `null` otherwise (a path-derived
 * namespace has nothing older to take over). The collector moves that namespace's rows into
 * `namespace` (see the storage's `moveNamespace`).
 */
export function legacyNamespaceFor(namespace: string, projectPath: string): string | null {
  const projectId = projectIdFromNamespace(namespace);
  if (projectId === null || !projectId.startsWith(REMOTE_PROJECT_ID_PREFIX)) return null;
  const actor = namespace.split("/")[2];
  return buildNamespace(actor, projectIdFromRoot(projectPath));
}

/** Build `/actor/<actor>/project/<project_id>/` (the actor is sanitized). */
export function buildNamespace(actor: string, projectId: string): string {
  return `/actor/${sanitizeActor(actor)}/project/${projectId}/`;
}

/**
 * The project segment of a namespace, or `null` when the string does not match
 * {@linkcode NAMESPACE_PATTERN}.
 */
export function projectIdFromNamespace(namespace: string): string | null {
  if (!NAMESPACE_PATTERN.test(namespace)) return null;
  return namespace.split("/")[4];
}

function identity(
  root: string,
  home: string | undefined,
  actor: string,
  isGlobal: boolean,
  remote?: GitRemote,
): ProjectIdentity {
  const projectId = projectIdOf(root, remote);
  const out: ProjectIdentity = {
    project_root: root,
    project_id: projectId,
    id_source: remote === undefined ? "path" : "git-remote",
    namespace: buildNamespace(actor, projectId),
    display_name: displayName(root, home, isGlobal),
    is_global: isGlobal,
  };
  if (remote !== undefined) out.remote = remote;
  return out;
}

function displayName(root: string, home: string | undefined, isGlobal: boolean): string {
  if (isGlobal) return "~ (global)";
  if (home !== undefined && isInside(root, home)) return "~" + root.slice(home.length);
  return root;
}

/** `dir` and its ancestors, nearest first, stopping before `stop` (or before the fs root). */
function ancestors(dir: string, stop: string | undefined): string[] {
  const out: string[] = [];
  let current = dir;
  while (current !== stop && !isFsRoot(current)) {
    out.push(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return out;
}

/** A repository's project root and the git dir whose `config` names its remotes. */
interface GitRoot {
  root: string;
  /** Undefined when a `.git` file points nowhere readable. */
  gitDir?: string;
}

function findGitRoot(candidates: string[], home: string | undefined): GitRoot | undefined {
  for (const dir of candidates) {
    const gitPath = join(dir, ".git");
    const info = statOrNull(gitPath);
    if (info === null) continue;
    if (info.isDirectory) return { root: dir, gitDir: gitPath };
    if (info.isFile) return gitFileRoot(dir, gitPath, home);
  }
  return undefined;
}

/**
 * A `.git` file belongs to a worktree or a submodule. Worktrees have a `commondir` pointing
 * at the main repository's git dir; mapping them to the main repository keeps one memory
 * pool per repository however many checkouts there are. Remotes live in the common git dir
 * (a worktree's own has no `config`); a submodule's are in its own git dir.
 */
function gitFileRoot(dir: string, gitPath: string, home: string | undefined): GitRoot {
  const gitDir = readGitDirPointer(gitPath, dir);
  if (gitDir === undefined) return { root: dir };
  const commonPointer = readTextOrNull(join(gitDir, "commondir"));
  if (commonPointer === null) return { root: dir, gitDir };
  const line = commonPointer.split(/\r?\n/)[0].trim();
  if (line === "") return { root: dir, gitDir };
  const commonDir = realPathOr(isAbsolute(line) ? line : resolve(gitDir, line));
  // Bare repositories have no working tree to map to, and a main repository at $HOME or at
  // the fs root would swallow everything; the worktree folder is the better root then.
  if (!commonDir.endsWith(`${sep}.git`)) return { root: dir, gitDir: commonDir };
  const main = dirname(commonDir);
  if (isFsRoot(main) || main === home) return { root: dir, gitDir: commonDir };
  return { root: main, gitDir: commonDir };
}

function readGitDirPointer(gitPath: string, dir: string): string | undefined {
  const text = readTextOrNull(gitPath);
  if (text === null) return undefined;
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(text);
  if (match === null) return undefined;
  const target = match[1];
  return realPathOr(isAbsolute(target) ? target : resolve(dir, target));
}

function findMarkerRoot(candidates: string[]): string | undefined {
  for (const dir of candidates) {
    for (const marker of PROJECT_MARKERS) {
      if (statOrNull(join(dir, marker)) !== null) return dir;
    }
  }
  return undefined;
}

function isFsRoot(path: string): boolean {
  return dirname(path) === path;
}

function realPathOr(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return path;
  }
}

function statOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.statSync(path);
  } catch {
    return null;
  }
}

function readTextOrNull(path: string): string | null {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return null;
  }
}

export type { EnvLike };
