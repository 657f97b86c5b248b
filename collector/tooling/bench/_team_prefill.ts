/**
 * Filling a store with generated records for the team pull bench, on this thread or in a Worker.
 *
 * SQLite calls are synchronous: a fill on the bench's own thread would stop its load generator
 * (B's session) for as long as it writes, and the latencies it measures would be the fill's. So a
 * fill while the daemons run (A's burst) goes through {@linkcode prefillInWorker}.
 *
 * @module
 */
import { openSqliteStorage } from "@kiro-learn/core/storage";
import { generateRecords } from "@kiro-learn/core/testing";

/** What a fill is asked (the Worker's message). */
export interface PrefillRequest {
  /** The database file. */
  path: string;
  /** The namespace the records go to. */
  namespace: string;
  /** How many. */
  n: number;
  /** Index of the first (records of one namespace get distinct ids per stretch). */
  from?: number;
}

function stringSeed(text: string): number {
  let h = 0;
  for (const ch of text) h = (Math.imul(h, 31) + ch.charCodeAt(0)) >>> 0;
  return h % 1_000_000_000;
}

/** Stores `n` records in `namespace` of the database at `path`, 1000 to a transaction. */
export async function prefill(request: PrefillRequest): Promise<string[]> {
  const { path, namespace, n } = request;
  const from = request.from ?? 0;
  const store = openSqliteStorage(path);
  const ids: string[] = [];
  try {
    for (let start = from; start < from + n; start += 1000) {
      const records = generateRecords(Math.min(1000, from + n - start), {
        // Ids come from the seed: each namespace and stretch gets its own (one id in two
        // projects is a hostile pull, refused).
        seed: stringSeed(namespace) + start,
        namespace,
        startIndex: start,
      });
      await store.commitExtraction({
        consumedSeqs: [],
        records: records.map((record) => ({ record })),
      });
      ids.push(...records.map((r) => r.record_id));
    }
  } finally {
    store.close();
  }
  return ids;
}

/** {@linkcode prefill} in a Worker: this thread goes on meanwhile. */
export async function prefillInWorker(request: PrefillRequest): Promise<string[]> {
  const worker = new Worker(import.meta.url, { type: "module" });
  try {
    const { promise, resolve, reject } = Promise.withResolvers<string[]>();
    worker.onmessage = (event: MessageEvent<{ ids?: string[]; error?: string }>) => {
      if (event.data.ids) resolve(event.data.ids);
      else reject(new Error(`prefill failed: ${event.data.error}`));
    };
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(`prefill failed: ${event.message}`));
    };
    worker.postMessage(request);
    return await promise;
  } finally {
    worker.terminate();
  }
}

// Run as a Worker: one fill per message.
const scope = globalThis as unknown as {
  WorkerGlobalScope?: unknown;
  onmessage: ((event: MessageEvent<PrefillRequest>) => void) | null;
  postMessage(message: { ids?: string[]; error?: string }): void;
};
if (scope.WorkerGlobalScope !== undefined) {
  scope.onmessage = async (event) => {
    try {
      scope.postMessage({ ids: await prefill(event.data) });
    } catch (error) {
      scope.postMessage({ error: String(error) });
    }
  };
}
