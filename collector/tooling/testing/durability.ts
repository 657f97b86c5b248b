/**
 * SIGKILL under load: concurrent clients post events to a real collector while it is killed and
 * restarted, and every acknowledged event is then looked for, once, in the database and in the
 * extraction queue.
 *
 * @module
 */
import { openSqliteStorage } from "@kiro-learn/core/storage";
import { makeEvent, TEST_NAMESPACE } from "@kiro-learn/core/testing";
import { postJson, type TestDaemon } from "./daemon.ts";

/** What survived the kills. */
export interface KillReport {
  /** Kills done. */
  kills: number;
  /** Events the collector acknowledged (`stored: true`). */
  acknowledged: number;
  /** Acknowledged events missing from the database afterwards. */
  lost: number;
  /** Acknowledged events missing from the extraction queue afterwards. */
  unqueued: number;
  /** Events queued more than once. */
  duplicated: number;
}

/**
 * Settings for a daemon under {@linkcode sigkillUnderLoad}: extraction must not consume the
 * queue while the check counts it (a fast machine acknowledges enough events for a size-triggered
 * run of 5,000 rows, which would read as "acknowledged but not queued").
 */
export const HOLD_QUEUE_SETTINGS: Record<string, unknown> = {
  extraction: { sizeThresholdBytes: 16_777_216, idleMs: 300_000 },
};

/**
 * Runs `clients` posting loops against `daemon`; every `runMs` it is SIGKILLed and restarted,
 * `kills` times. Leaves the daemon running.
 */
export async function sigkillUnderLoad(
  daemon: TestDaemon,
  options: { clients: number; kills: number; runMs: number },
): Promise<KillReport> {
  const acknowledged: string[] = [];
  for (let kill = 0; kill < options.kills; kill++) {
    let stop = false;
    const client = async () => {
      while (!stop) {
        const event = makeEvent({ kind: "tool_use" });
        try {
          const res = await postJson(daemon, "/v1/events", event);
          const body = await res.json();
          if (res.status === 200 && body.stored === true) acknowledged.push(event.event_id);
        } catch {
          return; // The daemon is gone.
        }
      }
    };
    const clients = Array.from({ length: options.clients }, client);
    await new Promise((r) => setTimeout(r, options.runMs));
    await daemon.kill();
    stop = true;
    await Promise.all(clients);
    await daemon.restart();
  }
  const storage = openSqliteStorage(`${daemon.dataDir}/kiro-learn.db`);
  try {
    const found = new Set((await storage.getEvents(acknowledged)).map((e) => e.event_id));
    const projectId = TEST_NAMESPACE.split("/")[4];
    const queued = (await storage.snapshotQueue(projectId)).flatMap((e) => e.source_event_ids);
    const counts = new Map<string, number>();
    for (const id of queued) counts.set(id, (counts.get(id) ?? 0) + 1);
    return {
      kills: options.kills,
      acknowledged: acknowledged.length,
      lost: acknowledged.filter((id) => !found.has(id)).length,
      unqueued: acknowledged.filter((id) => !counts.has(id)).length,
      duplicated: [...counts.values()].filter((n) => n > 1).length,
    };
  } finally {
    storage.close();
  }
}
