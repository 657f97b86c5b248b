import assert from "node:assert/strict";
import { RERANK_MODEL, TERM_SPACE_FEATURE, type TermSpace } from "@kiro-learn/core/search";
import { openSqliteStorage, type SqliteStorage } from "@kiro-learn/core/storage";
import { createLogger } from "../runtime/mod.ts";
import { createSearcher } from "../retrieval/mod.ts";
import {
  createTermSpaceService,
  type TermSpaceService,
  type TermSpaceServiceOptions,
  trainingDue,
  workerTrainer,
} from "./service.ts";
import { guardPair, projectRecords } from "./testdata/corpus.ts";

const A = `/actor/t/project/${"a".repeat(64)}/`;
const B = `/actor/t/project/${"b".repeat(64)}/`;
const logger = createLogger({ level: "error" });

async function withStore(fn: (path: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-term-spaces-" });
  try {
    await fn(`${dir}/kiro-learn.db`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function fill(storage: SqliteStorage, namespace: string, count: number) {
  for (const r of projectRecords(namespace, count)) await storage.putRecord(r);
}

/**
 * Runs `fn` with a service over `storage` (this file's logger and `options`), then closes the
 * service and the storage, whatever `fn` did.
 */
async function withService(
  storage: SqliteStorage,
  options: Omit<TermSpaceServiceOptions, "storage" | "logger">,
  fn: (service: TermSpaceService) => Promise<void>,
): Promise<void> {
  const service = createTermSpaceService({ storage, logger, ...options });
  try {
    await fn(service);
  } finally {
    await service.close();
    storage.close();
  }
}

/** A real Worker trainer that counts its trainings. */
function countingTrainer(): { calls: number; train: TermSpaceServiceOptions["train"] } {
  const real = workerTrainer({ sandbox: false });
  const out = {
    calls: 0,
    train: (pages: Parameters<typeof real>[0]) => {
      out.calls++;
      return real(pages);
    },
  };
  return out;
}

Deno.test("a namespace gets a space in a Worker once it is big enough, stored for a restart", async () => {
  await withStore(async (path) => {
    let storage = openSqliteStorage(path);
    await fill(storage, A, 300);
    await fill(storage, B, 120);
    const trainer = countingTrainer();
    let service = createTermSpaceService({
      storage,
      logger,
      train: trainer.train,
      minRecords: 200,
    });
    try {
      assert.equal(service.spaceFor(A), null, "nothing in memory yet: the search does not wait");
      await service.refresh(A);
      await service.refresh(B);
      const space = service.spaceFor(A);
      assert.ok(space !== null && space.dims > 0 && space.columns.has("crash"));
      assert.equal(service.spaceFor(B), null, "B is too small, and A's space is never B's");
      assert.equal(trainer.calls, 1);
      const stored = await storage.getTermSpace(A);
      assert.equal(stored?.record_count, 300);
      assert.equal(await storage.getTermSpace(B), null);
      // Checking again without growth trains nothing.
      await service.refresh(A);
      assert.equal(trainer.calls, 1);
    } finally {
      await service.close();
      storage.close();
    }

    // A restart loads the stored space: no training.
    storage = openSqliteStorage(path);
    const after = countingTrainer();
    service = createTermSpaceService({ storage, logger, train: after.train, minRecords: 200 });
    try {
      await service.refresh(A);
      const loaded = service.spaceFor(A) as TermSpace;
      assert.ok(loaded !== null);
      assert.equal(after.calls, 0);
      assert.equal(service.status().namespaces.find((n) => n.namespace === A)?.records, 300);
      // 20% growth (at least 200 records) retrains.
      await fill(storage, A, 199);
      await service.refresh(A);
      assert.equal(after.calls, 0, "199 new records: not yet");
      await fill(storage, A, 1);
      await service.refresh(A);
      assert.equal(after.calls, 1);
      assert.equal((await storage.getTermSpace(A))?.record_count, 500);
      // Forgetting a record drops the space learned from it, and a new one is trained.
      const [victim] = (await storage.listRecords({ namespace: A, limit: 1, offset: 0 })).items;
      await storage.forgetRecords([victim.record_id]);
      service.recordsForgotten();
      await service.idle();
      assert.equal(after.calls, 2);
      assert.equal((await storage.getTermSpace(A))?.record_count, 499);
    } finally {
      await service.close();
      storage.close();
    }
  });
});

Deno.test("a stored space of another version is retrained, not read", async () => {
  await withStore(async (path) => {
    const storage = openSqliteStorage(path);
    await fill(storage, A, 250);
    const stale = await storage.getTermSpace(A);
    assert.equal(stale, null);
    await storage.putTermSpace({
      namespace: A,
      version: 0,
      record_count: 250,
      trained_at: "2026-01-01T00:00:00.000Z",
      data: new Uint8Array([1, 2, 3]),
    });
    const trainer = countingTrainer();
    await withService(storage, {
      train: trainer.train,
      minRecords: 200,
    }, async (service) => {
      await service.refresh(A);
      assert.equal(trainer.calls, 1);
      assert.ok(service.spaceFor(A) !== null);
    });
  });
});

Deno.test("a failed training is logged and retried later; searches go on without a space", async () => {
  await withStore(async (path) => {
    const storage = openSqliteStorage(path);
    await fill(storage, A, 250);
    let calls = 0;
    await withService(storage, {
      minRecords: 200,
      train: () => {
        calls++;
        return Promise.reject(new Error("out of memory"));
      },
    }, async (service) => {
      await service.refresh(A);
      const state = service.status().namespaces.find((n) => n.namespace === A);
      assert.equal(state?.failures, 1);
      assert.match(state?.last_error ?? "", /out of memory/);
      // Within the retry pause, another check does not train again.
      await service.refresh(A);
      assert.equal(calls, 1);
      const search = createSearcher({
        searchCandidates: (ns, q, o) => storage.searchCandidates(ns, q, o),
        searchLexical: (ns, q, o) => storage.searchLexical(ns, q, o),
        termSpace: (ns) => service.spaceFor(ns),
      });
      assert.ok((await search(A, "crash when the port is removed", { limit: 5 })).length > 0);
    });
  });
});

Deno.test("guard: the ranked search puts the answer that shares only meaning with the prompt first", async () => {
  await withStore(async (path) => {
    const storage = openSqliteStorage(path);
    await fill(storage, A, 600);
    const { prompt, answer, other } = guardPair(A);
    await storage.putRecord(answer);
    await storage.putRecord(other);
    await withService(storage, {
      train: workerTrainer({ sandbox: false }),
    }, async (service) => {
      await service.refresh(A);
      assert.ok(service.spaceFor(A) !== null);
      const sources = {
        searchCandidates: storage.searchCandidates.bind(storage),
        searchLexical: storage.searchLexical.bind(storage),
      };
      const ranking = async (termSpace?: (ns: string) => TermSpace | null) =>
        // The ranking, not the no-answer gate, is what this guards: the gate is left open.
        await createSearcher({ ...sources, termSpace }, { model: { ...RERANK_MODEL, gate: 0 } })(
          A,
          prompt,
          { limit: 100 },
        );
      // How far the freed pointer (the cause of a segfault in this project's history) leads the
      // manual page, which shares the prompt's identifier and more of its words.
      const lead = (hits: Awaited<ReturnType<typeof ranking>>) => {
        const score = (title: string) => hits.find((h) => h.record.title === title)?.score;
        const [a, o] = [score(answer.title), score(other.title)];
        assert.ok(a !== undefined && o !== undefined, hits.map((h) => h.record.title).join(" | "));
        return a - o;
      };
      const without = await ranking();
      const withSpace = await ranking((ns) => service.spaceFor(ns));
      // The space moves the answer up, and puts it first.
      assert.ok(lead(withSpace) > lead(without), `${lead(withSpace)} vs ${lead(without)}`);
      assert.equal(withSpace[0].record.title, answer.title);
      // Another namespace's search never gets A's space.
      assert.equal(service.spaceFor(B), null);
    });
  });
});

Deno.test("beyond the memory cap, the least recently searched space is dropped and loaded again", async () => {
  await withStore(async (path) => {
    const storage = openSqliteStorage(path);
    await fill(storage, A, 250);
    await fill(storage, B, 250);
    const trainer = countingTrainer();
    await withService(storage, {
      train: trainer.train,
      minRecords: 200,
      maxInMemory: 1,
    }, async (service) => {
      service.spaceFor(A);
      await service.idle();
      assert.ok(service.spaceFor(A) !== null);
      service.spaceFor(B);
      await service.idle();
      assert.ok(service.spaceFor(B) !== null);
      assert.equal(trainer.calls, 2);
      // A was searched less recently: out of memory, not retrained when it is asked for again.
      assert.equal(service.spaceFor(A), null);
      await service.idle();
      assert.ok(service.spaceFor(A) !== null);
      assert.equal(trainer.calls, 2);
    });
  });
});

Deno.test("trainingDue: the minimum, then 20% growth and at least 200 records", () => {
  assert.equal(trainingDue(499, { trained: 0, minRecords: 500 }), false);
  assert.equal(trainingDue(500, { trained: 0, minRecords: 500 }), true);
  assert.equal(trainingDue(699, { trained: 500, minRecords: 500 }), false);
  assert.equal(trainingDue(700, { trained: 500, minRecords: 500 }), true);
  assert.equal(trainingDue(5_999, { trained: 5_000, minRecords: 500 }), false);
  assert.equal(trainingDue(6_000, { trained: 5_000, minRecords: 500 }), true);
  assert.ok(TERM_SPACE_FEATURE >= 0);
});

Deno.test("the training Worker runs with read access to its code only (as in the daemon)", async () => {
  const script = new URL("./testdata/sandboxed_training.ts", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "--unstable-worker-options", "--allow-read", script],
    stderr: "inherit",
  }).output();
  assert.equal(out.code, 0);
  const report = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.equal(report.dims, Math.min(128, report.terms));
  assert.ok(report.terms > 20, String(report.terms));
  assert.deepEqual(
    [report.net, report.write, report.env, report.run],
    [false, false, false, false],
  );
});

Deno.test("a training stopped while its pages are still being read rejects, and leaves nothing unhandled", async () => {
  const controller = new AbortController();
  const doc = { title: "netdev: fix a crash", summary: "check the pointer", files: ["lib/a.c"] };
  async function* pages() {
    yield [doc];
    controller.abort();
    // The rejection lands while the page loop waits here: it must not end the process.
    await new Promise((resolve) => setTimeout(resolve, 100));
    yield [doc];
  }
  const train = workerTrainer({ sandbox: false, signal: controller.signal });
  await assert.rejects(train(pages()), /collector closing/);
});

Deno.test("a space that learned from a record forgotten while it trained is never stored", async () => {
  await withStore(async (path) => {
    const storage = openSqliteStorage(path);
    await fill(storage, A, 249);
    const victim = projectRecords(A, 1).map((r) => ({
      ...r,
      record_id: "mr_01JZZZZZZZZZZZZZZZZZZZZZZZ",
      title: "quasar: the one record the user forgets",
    }))[0];
    await storage.putRecord(victim);
    const real = workerTrainer({ sandbox: false });
    let calls = 0;
    const seen: boolean[] = [];
    await withService(storage, {
      minRecords: 200,
      // The first training reads every page, then the user forgets a record before it is done.
      train: async (pages) => {
        calls++;
        const read: Parameters<typeof real>[0] extends AsyncIterable<infer T> ? T[] : never = [];
        for await (const page of pages) read.push(page);
        seen.push(read.flat().some((d) => d.title === victim.title));
        if (calls === 1) await storage.forgetRecords([victim.record_id]);
        return await real((async function* () {
          yield* read;
        })());
      },
    }, async (service) => {
      await service.refresh(A);
      await service.idle();
      assert.deepEqual(seen, [true, false], "trained again, without the forgotten record");
      const stored = await storage.getTermSpace(A);
      assert.equal(stored?.record_count, 249);
      assert.ok(service.spaceFor(A) !== null);
    });
  });
});

Deno.test("a namespace with no term to learn from is not retried until it grows", async () => {
  await withStore(async (path) => {
    const storage = openSqliteStorage(path);
    // Every record says the same words: each term is in all of them, so none is kept.
    for (const r of projectRecords(A, 250)) {
      await storage.putRecord({ ...r, title: "same words", summary: "", files_touched: [] });
    }
    const trainer = countingTrainer();
    await withService(storage, {
      train: trainer.train,
      minRecords: 200,
    }, async (service) => {
      await service.refresh(A);
      await service.refresh(A);
      assert.equal(trainer.calls, 1, "tried once, then it waits for growth");
      assert.equal(service.spaceFor(A), null);
      const state = service.status().namespaces.find((n) => n.namespace === A);
      assert.equal(state?.failures, 0);
    });
  });
});

Deno.test("records arriving in a burst are learned once, whole, after the namespace goes quiet", async () => {
  await withStore(async (path) => {
    const storage = openSqliteStorage(path);
    const trainer = countingTrainer();
    let closed: TermSpaceService | undefined;
    await withService(
      storage,
      { train: trainer.train, minRecords: 200, settleMs: 150 },
      async (service) => {
        closed = service;
        // An import: 500 records in batches, each batch announced as the daemon announces saves.
        for (let batch = 0; batch < 5; batch++) {
          await fill(storage, A, 100);
          service.recordsChanged(A);
          assert.equal(service.status().pending, 1, "a change is pending until it settles");
          await new Promise((resolve) => setTimeout(resolve, 30));
        }
        await service.idle();
        assert.equal(trainer.calls, 1, "one training for the whole burst");
        assert.equal((await storage.getTermSpace(A))?.record_count, 500);
        assert.equal(service.status().pending, 0);
        // A change left pending at close is dropped, not run after it.
        service.recordsChanged(A);
        assert.equal(service.status().pending, 1);
      },
    );
    assert.equal(closed!.status().pending, 0, "close drops the pending change");
    assert.equal(trainer.calls, 1);
  });
});
