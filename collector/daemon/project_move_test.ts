// A project's memory under its old, path-derived namespace moves to its repository's namespace
// exactly once: a real git clone, a real SQLite store, a real collector on loopback (started
// twice), a pre-upgrade event in the real spool, events built with the identity every surface
// uses.
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  buildNamespace,
  projectIdFromNamespace,
  projectIdFromRoot,
  resolveProject,
} from "@kiro-learn/core/project";
import { createCollectorClient } from "@kiro-learn/core/api";
import type { Event } from "@kiro-learn/core/schemas";
import { loadSettings, type Settings } from "@kiro-learn/core/settings";
import { spoolEvent } from "@kiro-learn/core/spool";
import { openSqliteStorage } from "@kiro-learn/core/storage";
import {
  countNamespaceRows,
  makeEvent,
  type NamespaceRows,
  NO_ROWS,
  runGit,
  seedNamespace,
  seedRepo,
} from "@kiro-learn/core/testing";
import { silentLogger } from "./runtime/mod.ts";
import { startCollector } from "./mod.ts";
import { freePort } from "../tooling/testing/mod.ts";

const ACTOR = "alice";

/** A clone of `git@github.com:acme/payments.git` at `<home>/code/payments`. */
async function cloneFixture(root: string, home: string): Promise<string> {
  const seed = await seedRepo(join(root, "seed"));
  const clone = join(home, "code", "payments");
  await Deno.mkdir(join(home, "code"), { recursive: true });
  await runGit(home, "clone", "-q", seed, clone);
  await runGit(clone, "remote", "set-url", "origin", "git@github.com:acme/payments.git");
  await Deno.mkdir(join(clone, "src"));
  return clone;
}

/** An event as the shims build it in `cwd` (their `buildEvent` goes through `resolveProject`). */
function hookEvent(cwd: string, home: string, content: string): Event {
  const project = resolveProject(cwd, { home, actor: ACTOR });
  return makeEvent({
    actor_id: ACTOR,
    namespace: project.namespace,
    body: { type: "text", content },
    source: {
      surface: "claude-code",
      version: "test",
      client_id: "host",
      project_path: project.project_root,
    },
  });
}

async function withCollector<T>(
  settings: Settings,
  fn: (
    post: (event: Event) => Promise<Record<string, unknown>>,
    get: (path: string) => Promise<unknown>,
  ) => Promise<T>,
): Promise<T> {
  const collector = await startCollector(settings, { logger: silentLogger() });
  const headers = {
    authorization: `Bearer ${collector.token}`,
    "content-type": "application/json",
  };
  try {
    return await fn(
      async (event) => {
        const res = await fetch(`${collector.url}/v1/events?retrieve=true`, {
          method: "POST",
          headers,
          body: JSON.stringify(event),
        });
        assert.equal(res.status, 200);
        return await res.json();
      },
      async (path) => {
        const res = await fetch(`${collector.url}${path}`, { headers });
        assert.equal(res.status, 200, path);
        return await res.json();
      },
    );
  } finally {
    await collector.close();
  }
}

interface Upgraded {
  home: string;
  clone: string;
  settings: Settings;
  /** The project as every surface resolves it now. */
  identity: ReturnType<typeof resolveProject>;
  /** Its namespace from before remotes decided ids. */
  old: { namespace: string; projectId: string };
  seeded: Awaited<ReturnType<typeof seedNamespace>>;
  /** What `old` held. */
  before: NamespaceRows;
  /** Counts a namespace's rows now (the collector must be stopped). */
  counts: (target: { namespace: string; projectId: string }) => NamespaceRows;
}

// A machine just upgraded: a clone of a repository with a remote, and a data dir whose store
// holds memory of every kind under the clone's old, path-derived namespace.
async function withUpgradedMachine(fn: (m: Upgraded) => Promise<void>): Promise<void> {
  const root = Deno.realPathSync(await Deno.makeTempDir({ prefix: "kl_project_move_" }));
  try {
    const home = join(root, "home");
    const dataDir = join(root, "data");
    await Deno.mkdir(dataDir, { recursive: true });
    const clone = await cloneFixture(root, home);
    await Deno.writeTextFile(
      join(dataDir, "settings.json"),
      JSON.stringify({
        collector: { port: freePort() },
        embedding: { backend: "off" },
        extraction: { strategy: "heuristic", idleMs: 300_000 },
      }),
    );
    const settings = loadSettings({ env: { KIRO_LEARN_HOME: dataDir } });
    const identity = resolveProject(clone, { home, actor: ACTOR });
    assert.equal(identity.id_source, "git-remote");
    const old = {
      namespace: buildNamespace(ACTOR, projectIdFromRoot(clone)),
      projectId: projectIdFromRoot(clone),
    };
    const counts = (target: { namespace: string; projectId: string }): NamespaceRows => {
      const s = openSqliteStorage(settings.paths.db);
      try {
        return countNamespaceRows(s.db, target);
      } finally {
        s.close();
      }
    };
    const storage = openSqliteStorage(settings.paths.db);
    const seeded = await seedNamespace(storage, { ...old, projectPath: clone });
    storage.close();
    await fn({ home, clone, settings, identity, old, seeded, before: counts(old), counts });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("old namespace moves into the repository's one once; a second start changes nothing", async () => {
  await withUpgradedMachine(
    async ({ home, clone, settings, identity, old, seeded, before, counts }) => {
      const next = { namespace: identity.namespace, projectId: identity.project_id };

      // Before the upgrade, besides the memory: one event still in the spool (a hook that found
      // the collector down).
      await Deno.mkdir(settings.paths.spool, { recursive: true });
      const spooled = makeEvent({
        actor_id: ACTOR,
        namespace: old.namespace,
        source: { surface: "claude-code", version: "old", client_id: "host", project_path: clone },
      });
      spoolEvent(spooled, { spoolDir: settings.paths.spool, maxBytes: 1 << 20 });

      // First start: the spool drains into the old namespace; the first hook event of the
      // project (from a subfolder) moves everything, before its retrieval runs.
      const first = await withCollector(settings, async (post, get) => {
        const answer = await post(
          hookEvent(join(clone, "src"), home, "why does the payments client retry?"),
        );
        const retrieval = answer.retrieval as { records: string[] };
        assert.ok(retrieval.records.includes(seeded.recordIds[0]), "moved memory is retrieved");
        const stats = await get("/v1/stats") as { projects: { namespace: string }[] };
        assert.deepEqual(stats.projects.map((p) => p.namespace), [next.namespace]);
        const search = await get(
          `/v1/memories/search?namespace=${encodeURIComponent(next.namespace)}&query=payments`,
        ) as { record_id: string }[];
        assert.ok(search.some((r) => r.record_id === seeded.recordIds[0]));
        return answer;
      });
      assert.equal(first.stored, true);
      const afterFirst = counts(next);
      assert.deepEqual(counts(old), NO_ROWS);
      // Everything that was there, plus the spooled event and the new one (each with its queue
      // row), nothing else.
      assert.deepEqual(afterFirst, {
        ...before,
        events: before.events + 2,
        queue_rows: before.queue_rows + 2,
        retrievals: before.retrievals + 1,
        retrieval_links: afterFirst.retrieval_links,
      });
      assert.ok(afterFirst.retrieval_links > before.retrieval_links);

      // Second start: a late pre-upgrade event and a new one; nothing moves twice.
      const late = makeEvent({
        actor_id: ACTOR,
        namespace: old.namespace,
        source: { surface: "claude-code", version: "old", client_id: "host", project_path: clone },
      });
      spoolEvent(late, { spoolDir: settings.paths.spool, maxBytes: 1 << 20 });
      await withCollector(settings, async (post, get) => {
        await post(hookEvent(clone, home, "and the integration tests?"));
        const stats = await get("/v1/stats") as { projects: { namespace: string }[] };
        assert.deepEqual(stats.projects.map((p) => p.namespace), [next.namespace]);
      });
      const afterSecond = counts(next);
      assert.deepEqual(counts(old), NO_ROWS);
      assert.deepEqual(afterSecond, {
        ...afterFirst,
        events: afterFirst.events + 2,
        queue_rows: afterFirst.queue_rows + 2,
        retrievals: afterFirst.retrievals + 1,
        retrieval_links: afterSecond.retrieval_links,
      });
      const s = openSqliteStorage(settings.paths.db);
      try {
        const moves = s.db.prepare("SELECT from_namespace, to_namespace FROM namespace_moves")
          .all();
        assert.deepEqual(moves.map((m) => ({ ...m })), [
          { from_namespace: old.namespace, to_namespace: next.namespace },
        ]);
        // No record id twice, no event id twice (primary keys), and each spooled event once.
        const [stored] = await s.getEvents([late.event_id]);
        assert.equal(projectIdFromNamespace(stored.namespace), next.projectId);
        const ids = s.db.prepare("SELECT count(*) AS n FROM events WHERE event_id IN (?, ?)")
          .get(spooled.event_id, late.event_id) as { n: number };
        assert.equal(ids.n, 2);
      } finally {
        s.close();
      }
    },
  );
});

Deno.test("a client naming its project moves the old namespace before any event", async () => {
  await withUpgradedMachine(
    async ({ home, clone, settings, identity, old, seeded, before, counts }) => {
      const collector = await startCollector(settings, { logger: silentLogger() });
      try {
        // What the MCP server and the CLI do before their first read: the real client.
        const client = createCollectorClient({
          host: settings.collector.host,
          port: collector.port,
          tokenPath: settings.paths.token,
        });
        const first = await client.identifyProject(identity.namespace, identity.project_root);
        assert.equal(first.namespace, identity.namespace);
        assert.equal(first.moved?.records, before.records);
        assert.equal(first.moved?.events, before.events);
        const found = await client.search(identity.namespace, "payments retries", { limit: 5 });
        assert.ok(found.some((r) => r.record_id === seeded.recordIds[0]));
        assert.deepEqual(await client.identifyProject(identity.namespace, identity.project_root), {
          namespace: identity.namespace,
          moved: null,
        });
        // A path-derived namespace has nothing older: nothing moves, nothing is recorded.
        const plain = resolveProject(join(clone, "..", "elsewhere"), { home, actor: ACTOR });
        assert.equal(
          (await client.identifyProject(plain.namespace, plain.project_root)).moved,
          null,
        );
      } finally {
        await collector.close();
      }
      assert.deepEqual(counts(old), NO_ROWS);
      assert.deepEqual(
        counts({ namespace: identity.namespace, projectId: identity.project_id }),
        before,
      );
    },
  );
});
