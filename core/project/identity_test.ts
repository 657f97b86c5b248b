import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join, relative } from "node:path";
import fc from "fast-check";
import { NAMESPACE_PATTERN } from "../schemas/limits.ts";
import { runGit, seedRepo } from "../testing/mod.ts";
import {
  buildNamespace,
  currentActor,
  legacyNamespaceFor,
  PROJECT_ID_GRAMMAR,
  PROJECT_ID_PATTERN,
  PROJECT_MARKERS,
  projectIdFromNamespace,
  projectIdFromRemote,
  projectIdFromRoot,
  resolveProject,
  sanitizeActor,
} from "./mod.ts";

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** A realpath'd temp dir with a fake home inside, and cleanup. */
async function withFixture(
  fn: (root: string, home: string) => void | Promise<void>,
): Promise<void> {
  const root = Deno.realPathSync(await Deno.makeTempDir({ prefix: "kl_identity_" }));
  const home = join(root, "home");
  await Deno.mkdir(home);
  try {
    await fn(root, home);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

function mkdirp(...parts: string[]): string {
  const path = join(...parts);
  Deno.mkdirSync(path, { recursive: true });
  return path;
}

function touch(path: string, text = ""): void {
  Deno.writeTextFileSync(path, text);
}

const git = runGit;

Deno.test("subdirectory of a git repo resolves to the repo root", async () => {
  await withFixture((_root, home) => {
    const repo = mkdirp(home, "code", "app");
    mkdirp(repo, ".git");
    const deep = mkdirp(repo, "src", "lib", "deep");
    const id = resolveProject(deep, { home, actor: "alice" });
    assert.equal(id.project_root, repo);
    assert.equal(id.project_id, sha256(repo));
    assert.equal(id.namespace, `/actor/alice/project/${sha256(repo)}/`);
    assert.equal(id.display_name, "~/code/app");
    assert.equal(id.is_global, false);
  });
});

Deno.test("a real git worktree resolves to its main repository", async () => {
  await withFixture(async (_root, home) => {
    const repo = mkdirp(home, "code", "main-repo");
    await git(repo, "init", "-q");
    touch(join(repo, "README"), "hi");
    await git(repo, "add", "README");
    await git(repo, "commit", "-q", "-m", "init");
    const worktree = join(home, "code", "wt-feature");
    await git(repo, "worktree", "add", "-q", worktree, "-b", "feature");
    assert.ok(Deno.statSync(join(worktree, ".git")).isFile);

    const sub = mkdirp(worktree, "nested");
    assert.equal(resolveProject(sub, { home }).project_root, repo);
    assert.equal(
      resolveProject(worktree, { home }).project_id,
      resolveProject(repo, { home }).project_id,
    );
  });
});

Deno.test("hand-made worktree with relative gitdir and commondir maps to the main repo", async () => {
  await withFixture((_root, home) => {
    const repo = mkdirp(home, "main");
    const wtGitDir = mkdirp(repo, ".git", "worktrees", "side");
    touch(join(wtGitDir, "commondir"), "../..\n");
    const side = mkdirp(home, "side");
    touch(join(side, ".git"), "gitdir: ../main/.git/worktrees/side\n");
    assert.equal(resolveProject(mkdirp(side, "src"), { home }).project_root, repo);
  });
});

Deno.test("a worktree of a bare repository stays its own project", async () => {
  await withFixture(async (_root, home) => {
    const seed = mkdirp(home, "seed");
    await git(seed, "init", "-q");
    touch(join(seed, "f"), "x");
    await git(seed, "add", "f");
    await git(seed, "commit", "-q", "-m", "c");
    const bare = join(home, "bare.git");
    await git(home, "clone", "-q", "--bare", seed, bare);
    const wt = join(home, "bare-wt");
    await git(bare, "worktree", "add", "-q", wt, "-b", "w");
    assert.equal(resolveProject(wt, { home }).project_root, wt);
  });
});

Deno.test("submodule-style .git file without commondir maps to its own folder", async () => {
  await withFixture((_root, home) => {
    const superRepo = mkdirp(home, "super");
    mkdirp(superRepo, ".git", "modules", "lib");
    const sub = mkdirp(superRepo, "vendor", "lib");
    touch(join(sub, ".git"), "gitdir: ../../.git/modules/lib\n");
    const inner = mkdirp(sub, "src");
    assert.equal(resolveProject(inner, { home }).project_root, sub);
  });
});

Deno.test(".git file with an unreadable gitdir still marks its folder", async () => {
  await withFixture((_root, home) => {
    const dir = mkdirp(home, "odd");
    touch(join(dir, ".git"), "not a pointer");
    assert.equal(resolveProject(mkdirp(dir, "x"), { home }).project_root, dir);
  });
});

Deno.test("marker walk: the nearest marker wins", async () => {
  await withFixture((_root, home) => {
    const outer = mkdirp(home, "mono");
    touch(join(outer, "package.json"), "{}");
    const inner = mkdirp(outer, "crates", "core");
    touch(join(inner, "Cargo.toml"), "");
    const cwd = mkdirp(inner, "src");
    assert.equal(resolveProject(cwd, { home }).project_root, inner);
    assert.equal(resolveProject(mkdirp(outer, "docs"), { home }).project_root, outer);
  });
});

Deno.test("every marker in PROJECT_MARKERS is recognised (a .kiro folder too)", async () => {
  await withFixture((_root, home) => {
    for (const [i, marker] of PROJECT_MARKERS.entries()) {
      const dir = mkdirp(home, `p${i}`);
      if (marker === ".kiro") mkdirp(dir, marker);
      else touch(join(dir, marker));
      assert.equal(resolveProject(mkdirp(dir, "sub"), { home }).project_root, dir, marker);
    }
  });
});

Deno.test("git root beats a nearer package.json", async () => {
  await withFixture((_root, home) => {
    const repo = mkdirp(home, "repo");
    mkdirp(repo, ".git");
    const pkg = mkdirp(repo, "packages", "web");
    touch(join(pkg, "package.json"), "{}");
    assert.equal(resolveProject(mkdirp(pkg, "src"), { home }).project_root, repo);
  });
});

Deno.test("home itself is the global scope", async () => {
  await withFixture((_root, home) => {
    const id = resolveProject(home, { home, actor: "bob" });
    assert.equal(id.project_root, home);
    assert.equal(id.is_global, true);
    assert.equal(id.display_name, "~ (global)");
    assert.equal(id.project_id, sha256(home));
  });
});

Deno.test("no marker below home is the global scope", async () => {
  await withFixture((_root, home) => {
    const id = resolveProject(mkdirp(home, "Downloads", "x"), { home });
    assert.equal(id.project_root, home);
    assert.equal(id.is_global, true);
  });
});

Deno.test("a dotfiles repo or marker at $HOME does not make home one project", async () => {
  await withFixture((_root, home) => {
    mkdirp(home, ".git");
    touch(join(home, "package.json"), "{}");
    const id = resolveProject(mkdirp(home, "notes"), { home });
    assert.equal(id.is_global, true);
    assert.equal(id.project_root, home);
  });
});

Deno.test("outside home: no marker means the cwd itself", async () => {
  await withFixture((root, home) => {
    const a = mkdirp(root, "srv", "alpha");
    const b = mkdirp(root, "srv", "beta");
    const idA = resolveProject(a, { home });
    const idB = resolveProject(b, { home });
    assert.equal(idA.project_root, a);
    assert.equal(idA.is_global, false);
    assert.equal(idA.display_name, a);
    assert.notEqual(idA.project_id, idB.project_id);
  });
});

Deno.test("outside home: markers and git are honoured", async () => {
  await withFixture((root, home) => {
    const ws = mkdirp(root, "workspace", "svc");
    touch(join(ws, "go.mod"), "module x");
    assert.equal(resolveProject(mkdirp(ws, "cmd", "x"), { home }).project_root, ws);
    const repo = mkdirp(root, "workspace", "repo");
    mkdirp(repo, ".git");
    assert.equal(resolveProject(mkdirp(repo, "a", "b"), { home }).project_root, repo);
  });
});

Deno.test("symlinked cwd and home are realpath'd", async () => {
  await withFixture((root, home) => {
    const repo = mkdirp(home, "proj");
    touch(join(repo, "deno.json"), "{}");
    const link = join(root, "link-to-proj");
    Deno.symlinkSync(repo, link);
    const homeLink = join(root, "home-link");
    Deno.symlinkSync(home, homeLink);
    const id = resolveProject(link, { home: homeLink });
    assert.equal(id.project_root, repo);
    assert.equal(id.display_name, "~/proj");
  });
});

Deno.test("a missing cwd falls back to the raw path", async () => {
  await withFixture((root, home) => {
    const ghost = join(root, "gone", "away");
    const id = resolveProject(ghost, { home });
    assert.equal(id.project_root, ghost);
    assert.equal(id.project_id, sha256(ghost));
  });
});

Deno.test("a home of / is ignored so the machine is not one global pool", () => {
  const id = resolveProject("/tmp", { home: "/" });
  assert.equal(id.is_global, false);
});

Deno.test("currentActor: USER, USERNAME, LOGNAME, unknown; sanitized", () => {
  assert.equal(currentActor({ USER: "ann", USERNAME: "x", LOGNAME: "y" }), "ann");
  assert.equal(currentActor({ USERNAME: "win" }), "win");
  assert.equal(currentActor({ LOGNAME: "log" }), "log");
  assert.equal(currentActor({}), "unknown");
  assert.equal(currentActor({ USER: "  " }), "unknown");
  assert.equal(currentActor({ USER: "a/b\\c" }), "a_b_c");
  assert.equal(sanitizeActor("x".repeat(300)).length, 128);
  assert.equal(sanitizeActor(""), "unknown");
});

Deno.test("projectIdFromNamespace and NAMESPACE_PATTERN", () => {
  const ns = buildNamespace("me", "abc123");
  assert.equal(ns, "/actor/me/project/abc123/");
  assert.equal(projectIdFromNamespace(ns), "abc123");
  assert.equal(projectIdFromNamespace("/actor/me/project/abc123"), null);
  assert.equal(projectIdFromNamespace("/actor//project/x/"), null);
  assert.equal(projectIdFromNamespace("/actor/a/b/project/x/"), null);
  assert.equal(buildNamespace("a/b", "p"), "/actor/a_b/project/p/");
});

Deno.test("property: actor sanitizing always yields a valid namespace", () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 300 }), (actor) => {
      const s = sanitizeActor(actor);
      assert.ok(!s.includes("/"));
      assert.ok(s.length >= 1 && Array.from(s).length <= 128);
      assert.match(buildNamespace(actor, "p"), NAMESPACE_PATTERN);
    }),
  );
});

const segment = fc.constantFrom("a", "b", "src", "lib", "pkg", "x y", "deep");
const markerChoice = fc.constantFrom(...PROJECT_MARKERS, ".git", null);

Deno.test("property: root is an ancestor-or-self, id = sha256(root), deterministic", async () => {
  await withFixture((root, home) => {
    let n = 0;
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.array(fc.tuple(segment, markerChoice), { minLength: 0, maxLength: 6 }),
        fc.string({ minLength: 1, maxLength: 20 }),
        (underHome, levels, actor) => {
          const base = mkdirp(underHome ? home : root, `case${n++}`);
          let cwd = base;
          for (const [name, marker] of levels) {
            cwd = mkdirp(cwd, name);
            if (marker === ".git" || marker === ".kiro") mkdirp(cwd, marker);
            else if (marker !== null) touch(join(cwd, marker));
          }
          const id = resolveProject(cwd, { home, actor });
          const rel = relative(id.project_root, cwd);
          assert.ok(!rel.startsWith("..") && !rel.startsWith("/"), `${id.project_root} vs ${cwd}`);
          assert.equal(id.project_id, sha256(id.project_root));
          assert.match(id.namespace, NAMESPACE_PATTERN);
          assert.equal(projectIdFromNamespace(id.namespace), id.project_id);
          assert.deepEqual(resolveProject(cwd, { home, actor }), id);
          if (!underHome) assert.equal(id.is_global, false);
          if (id.is_global) assert.equal(id.project_root, home);
        },
      ),
      { numRuns: 60 },
    );
  });
});

Deno.test("two real clones of one remote in different paths and homes share a namespace", async () => {
  await withFixture(async (root, home) => {
    const seed = await seedRepo(join(root, "srv", "payments.git"));
    // Two "machines": different homes, different checkout paths.
    const homeB = mkdirp(root, "home-b");
    const a = join(home, "code", "payments");
    const b = join(homeB, "work", "clients", "pay");
    mkdirp(home, "code");
    mkdirp(homeB, "work", "clients");
    await git(home, "clone", "-q", seed, a);
    await git(homeB, "clone", "-q", `file://${seed}`, b);
    const idA = resolveProject(mkdirp(a, "src"), { home, actor: "alice" });
    const idB = resolveProject(b, { home: homeB, actor: "alice" });
    assert.notEqual(idA.project_root, idB.project_root);
    assert.equal(idA.namespace, idB.namespace);
    assert.equal(idA.id_source, "git-remote");
    assert.deepEqual(idA.remote, { name: "origin", url: `file://${seed.slice(0, -4)}` });
    assert.equal(idA.project_id, projectIdFromRemote(idA.remote!.url));
    assert.match(idA.project_id, PROJECT_ID_PATTERN);
    assert.match(idA.namespace, NAMESPACE_PATTERN);
    // The seed itself has no remote: its id is still its path's.
    const seedId = resolveProject(seed, { home });
    assert.equal(seedId.id_source, "path");
    assert.equal(seedId.project_id, sha256(seed));
  });
});

Deno.test("SSH and HTTPS clones of one repository agree; other remotes do not", async () => {
  await withFixture(async (root, home) => {
    const seed = await seedRepo(join(root, "seed"));
    const clone = async (name: string, url: string) => {
      const dir = join(home, name);
      await git(home, "clone", "-q", seed, dir);
      await git(dir, "remote", "set-url", "origin", url);
      return resolveProject(dir, { home, actor: "bob" });
    };
    const ssh = await clone("ssh", "git@github.com:acme/payments.git");
    const https = await clone("https", "https://bob:ghp_t0ken@GitHub.com/acme/payments/");
    const other = await clone("other", "git@github.com:acme/billing.git");
    assert.equal(ssh.namespace, https.namespace);
    assert.notEqual(ssh.namespace, other.namespace);
    assert.equal(https.remote?.url, "github.com/acme/payments");
    // The token is in no field of the identity (which status and logs may show).
    assert.ok(!JSON.stringify(https).includes("ghp_t0ken"));
    assert.ok(!JSON.stringify(https).includes("bob:"));
  });
});

Deno.test("origin is preferred; without it the first remote in the config decides", async () => {
  await withFixture(async (_root, home) => {
    const repo = await seedRepo(join(home, "multi"));
    await git(repo, "remote", "add", "zeta", "git@host:z/z.git");
    await git(repo, "remote", "add", "alpha", "git@host:a/a.git");
    assert.deepEqual(resolveProject(repo, { home }).remote, { name: "zeta", url: "host/z/z" });
    await git(repo, "remote", "add", "origin", "git@host:o/o.git");
    assert.deepEqual(resolveProject(repo, { home }).remote, { name: "origin", url: "host/o/o" });
  });
});

Deno.test("a worktree of a clone takes the clone's remote from the common git dir", async () => {
  await withFixture(async (root, home) => {
    const seed = await seedRepo(join(root, "seed"));
    const clone = join(home, "clone");
    await git(home, "clone", "-q", seed, clone);
    const wt = join(home, "clone-wt");
    await git(clone, "worktree", "add", "-q", wt, "-b", "side");
    const fromWt = resolveProject(wt, { home });
    assert.equal(fromWt.project_root, clone);
    assert.equal(fromWt.id_source, "git-remote");
    assert.equal(fromWt.project_id, resolveProject(clone, { home }).project_id);
  });
});

Deno.test("a submodule takes its remote from its own git dir", async () => {
  await withFixture(async (root, home) => {
    const lib = await seedRepo(join(root, "lib"));
    const app = await seedRepo(join(home, "app"));
    await git(app, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "vendor/lib");
    const sub = resolveProject(join(app, "vendor", "lib"), { home });
    assert.equal(sub.project_root, join(app, "vendor", "lib"));
    assert.deepEqual(sub.remote, { name: "origin", url: `file://${lib}` });
    assert.equal(resolveProject(app, { home }).id_source, "path");
  });
});

Deno.test("legacyNamespaceFor: only a remote namespace has an older path one", () => {
  const remoteId = projectIdFromRemote("github.com/acme/app");
  const ns = buildNamespace("alice", remoteId);
  assert.equal(
    legacyNamespaceFor(ns, "/home/alice/app"),
    buildNamespace("alice", sha256("/home/alice/app")),
  );
  assert.equal(legacyNamespaceFor(buildNamespace("alice", sha256("/x")), "/x"), null);
  assert.equal(legacyNamespaceFor("not a namespace", "/x"), null);
});

Deno.test("the project-id grammar is one text: the pattern here, the team database's check there", () => {
  assert.equal(PROJECT_ID_PATTERN.source, PROJECT_ID_GRAMMAR);
  const path = projectIdFromRoot("/srv/app");
  const remote = projectIdFromRemote("github.com/acme/pay");
  for (const id of [path, remote]) assert.match(id, PROJECT_ID_PATTERN);
  for (const bad of ["git-", `GIT-${path}`, `${path}0`, remote.slice(0, -1), `x${path}`]) {
    assert.doesNotMatch(bad, PROJECT_ID_PATTERN);
  }
  // Nothing in it that PostgreSQL's regular expressions read differently, or that ends the
  // quoted literal a migration puts it in.
  assert.match(PROJECT_ID_GRAMMAR, /^[\^$()?:a-z0-9\-\[\]{}]+$/);
});
