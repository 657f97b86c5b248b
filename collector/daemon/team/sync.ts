/**
 * Team sync: one job, keeping this machine's memory of shared projects in step with the team's
 * PostgreSQL database.
 *
 * - **Publish.** SQLite triggers put every local save, edit, forget and merge of a record into
 *   an outbox in the same transaction (`core/storage`, migration 9). Each cycle publishes the
 *   outbox oldest first, one PostgreSQL transaction per project, and deletes the rows only after
 *   that commit: a collector killed in between publishes them again, which is harmless (an
 *   upsert of the same content changes nothing).
 * - **Pull.** Teammates' changes of each granted project are read after a cursor (the team
 *   database's change sequence) and applied to the local store with the cursor in short SQLite
 *   transactions, pausing between them so the collector's own writes never wait long
 *   (`_pull.ts`): nothing is applied twice or skipped, and a change only ever touches records of
 *   the project it was pulled for. Retrieval stays local.
 * - **When.** A LISTEN on the change channel wakes a pull as soon as a teammate commits; the
 *   outbox is looked at every `team.pollMs`, and a pull runs at least every 30 s without a
 *   notification (a missed one while reconnecting).
 * - **Down.** Any error is kept as the last error (status shows it), the cycle retries with a
 *   growing pause, and everything local keeps working; the outbox is the backlog.
 * - **Isolated.** The collector runs this loop in a Worker (`worker.ts`), never on its own event
 *   loop: an error the PostgreSQL client throws outside any caller ends that Worker only.
 *
 * Which projects are shared is the database's decision: those granted to this role (status names
 * them, `granted`). A project granted for the first time publishes every record it has here. The
 * changes of a project never shared here are not published (they stay on this machine, and the
 * log says so once); those of a project shared before whose grant is gone wait in the outbox until
 * it is granted again. A project is pulled once this machine has worked on it (an event or a
 * record of it is here), in the first cycle after that: teammates' records go into the namespace
 * this machine's retrieval searches for it.
 *
 * @module
 */
import { settlesWithin } from "@kiro-learn/core/settle";
import type { TeamApplied, TeamOutboxItem, TeamStore, WriteTurns } from "@kiro-learn/core/storage";
import type { Logger } from "../runtime/mod.ts";
import { connectTeam, describeTeamError, redactTeamUrl, teamUser } from "./connect.ts";
import { pullProject } from "./_pull.ts";
import { publishProject, type PublishRefusal } from "./_publish.ts";
import { TEAM_CHANNEL, teamSchemaState } from "./schema.ts";

/** How many outbox rows one step publishes. */
const BATCH = 500;
/** A pull runs at least this often even without a notification. */
const PULL_EVERY_MS = 30_000;
/**
 * A cycle that gets nothing done for this long (a hung connection) is given up; the next gets a
 * new pool. A long pull that keeps applying slices is not stuck.
 */
const CYCLE_TIMEOUT_MS = 60_000;
/** Status is posted at most this often while a cycle publishes or pulls (and at its end). */
const STATUS_EVERY_MS = 250;
/** The longest pause between retries while the database is unreachable. */
const MAX_BACKOFF_MS = 30_000;

/** What status and the viewer show of team sharing. */
export interface TeamSyncStatus {
  /** The database, without a password. */
  url: string;
  /** The PostgreSQL role this machine connects as. */
  role: string;
  /** This machine's id in the team. */
  client_id: string;
  /** The last cycle reached the database. */
  connected: boolean;
  /** Local changes not yet published. */
  backlog: number;
  /** Projects shared here at some time (granted now or not). */
  projects: number;
  /** The project keys granted to this role, as the last cycle read them (null before it). */
  granted: string[] | null;
  /** Records here that came from teammates. */
  pulled_records: number;
  /** Records published since the collector started. */
  published: number;
  /** Changes pulled since the collector started. */
  pulled: number;
  /** What went wrong last (null once a cycle succeeds again). */
  last_error: string | null;
  /** When it went wrong. */
  last_error_at: string | null;
  /** When a cycle last succeeded. */
  last_sync_at: string | null;
}

/** A running sync. */
export interface TeamSync {
  /** Status for `kiro-learn status` and `/v1/stats`. */
  status(): TeamSyncStatus;
  /** Runs a cycle now (and waits for it). */
  syncNow(): Promise<void>;
  /** Stops the loop and closes the connections. */
  close(): Promise<void>;
}

/** What the sync needs. */
export interface TeamSyncOptions {
  /** The team database (`team.url`, no password). */
  url: string;
  /** The role's password (from the team password file). */
  password: string;
  /** The local store. */
  store: TeamStore;
  /** Logger (never given the password). */
  logger: Logger;
  /** How often the outbox is looked at. */
  pollMs: number;
  /** Told what each pull changed here (embeddings, live feed). */
  onApplied?: (applied: TeamApplied) => void;
  /** The collector's write turns: the pull gives way to its writes (`_pull.ts`). */
  turns?: WriteTurns;
  /** Told whenever the status may have changed (a batch published or pulled, a cycle's end). */
  onStatus?: () => void;
}

/** Starts syncing in the background; the first cycle runs at once. */
export function startTeamSync(options: TeamSyncOptions): TeamSync {
  const { store, logger } = options;
  const connect = () => connectTeam(options.url, { password: options.password, max: 1 });
  let sql = connect();
  const clientId = store.teamClientId();
  const state = {
    connected: false,
    published: 0,
    pulled: 0,
    lastError: null as string | null,
    lastErrorAt: null as string | null,
    lastSyncAt: null as string | null,
    lastPullAt: 0,
    /** When the running cycle last got something done (the watchdog's clock). */
    progressAt: 0,
    statusAt: 0,
    notified: true,
    listening: false,
    schemaChecked: false,
    failures: 0,
    granted: null as string[] | null,
  };
  let closed = false;
  let wake: () => void = () => {};
  let running: Promise<void> | null = null;

  async function listen(): Promise<void> {
    if (state.listening) return;
    // The client re-issues the LISTEN on its own after a reconnect.
    await sql.listen(TEAM_CHANNEL, () => {
      state.notified = true;
      wake();
    });
    state.listening = true;
  }

  async function cycle(): Promise<void> {
    if (!state.schemaChecked) {
      const schema = await teamSchemaState(sql);
      if (schema.pending.length > 0) {
        throw new Error(
          `the team database lacks schema version(s) ${schema.pending.join(", ")}: ask your ` +
            "admin to run `kiro-learn team migrate`",
        );
      }
      state.schemaChecked = true;
    }
    await listen();
    const grants = await sql<{ project_key: string }[]>`
      SELECT DISTINCT project_key FROM kl_grants ORDER BY project_key`;
    const granted = new Set(grants.map((g) => g.project_key));
    state.granted = [...granted];
    for (const key of granted) {
      if (store.teamStartProject(key)) logger.info("team: sharing project", { project_id: key });
    }
    await publish(granted);
    const pullDue = state.notified || Date.now() - state.lastPullAt >= PULL_EVERY_MS;
    if (pullDue) state.notified = false;
    for (const key of granted) {
      // A project this machine has just started working on is pulled at once, not on the timer.
      if (pullDue || !localProjects.has(key)) await pull(key);
    }
    if (pullDue) state.lastPullAt = Date.now();
  }

  async function publish(granted: Set<string>): Promise<void> {
    // Projects shared here before and not granted now keep their changes in the outbox: they are
    // published if the project is granted again (passed over meanwhile, after `kept`).
    const sharedBefore = new Set(store.teamStartedProjects());
    let kept = 0;
    for (;;) {
      const items = store.teamOutbox({ limit: BATCH, afterSeq: kept });
      if (items.length === 0) return;
      const byProject = new Map<string, TeamOutboxItem[]>();
      const dropped: number[] = [];
      for (const item of items) {
        if (item.kind === "skip") {
          dropped.push(item.seq);
        } else if (granted.has(item.project_key)) {
          byProject.set(item.project_key, [...byProject.get(item.project_key) ?? [], item]);
        } else if (sharedBefore.has(item.project_key)) {
          kept = item.seq;
          notShared(item.project_key, "kept until it is granted again");
        } else {
          // Never shared here: its records stay on this machine. The first grant publishes every
          // record of it (teamStartProject), so nothing needs keeping meanwhile.
          dropped.push(item.seq);
          notShared(item.project_key, "its records stay on this machine");
        }
      }
      for (const [key, group] of byProject) {
        const outcome = await publishProject(sql, group, { projectKey: key, clientId });
        store.teamAck(outcome.done);
        if (outcome.kept.length > 0) kept = Math.max(kept, ...outcome.kept);
        if (outcome.refused.length > 0) refusedRows(key, outcome.refused);
        state.published += outcome.published;
        progressed();
      }
      store.teamAck(dropped);
    }
  }

  /** Records the team database refused, each said once (a kept one is tried every cycle). */
  const refusedSaid = new Set<string>();

  function refusedRows(key: string, refused: readonly PublishRefusal[]): void {
    const fresh = refused.filter((r) => !refusedSaid.has(r.record_id));
    if (fresh.length === 0) return;
    for (const r of fresh) refusedSaid.add(r.record_id);
    logger.warn("team: the team database refused records; the rest were published", {
      project_id: key,
      count: fresh.length,
      refused: fresh.slice(0, 10).map((r) => ({
        record_id: r.record_id,
        reason: r.reason,
        outcome: r.kept ? "kept, tried again each cycle" : "not published (it stays here)",
      })),
    });
  }

  /** Projects this machine has worked on (pulled records need its namespace for them). */
  const localProjects = new Set<string>();
  /** Projects whose changes were not published (logged once each). */
  const notSharedSaid = new Set<string>();

  function notShared(key: string, what: string): void {
    if (notSharedSaid.has(key)) return;
    notSharedSaid.add(key);
    logger.info(`team: a project not granted to role "${teamUser(options.url)}": ${what}`, {
      project_id: key,
    });
  }

  async function pull(key: string): Promise<void> {
    // Before this machine has worked on a project, its teammates' records would land in no
    // namespace its retrieval searches: they are pulled (from the start) once it has.
    if (!localProjects.has(key)) {
      if (store.teamLocalNamespace(key) === null) return;
      localProjects.add(key);
    }
    const result = await pullProject(sql, store, {
      projectKey: key,
      clientId,
      turns: options.turns,
      onApplied: options.onApplied,
      onProgress: (n) => {
        state.pulled += n;
        progressed();
      },
    });
    if (result.refused.length > 0) {
      logger.warn("team: refused pulled changes naming records of another project", {
        project_id: key,
        count: result.refused.length,
        record_ids: result.refused.slice(0, 10),
      });
    }
  }

  /** A batch published or a slice pulled: the watchdog waits on, status (at most 4/s) says so. */
  function progressed(): void {
    state.progressAt = Date.now();
    if (state.progressAt - state.statusAt < STATUS_EVERY_MS) return;
    state.statusAt = state.progressAt;
    options.onStatus?.();
  }

  function fail(error: unknown): void {
    // A fresh pool (and LISTEN) next time: a connection that died mid-query is not reused.
    const old = sql;
    sql = connect();
    state.listening = false;
    old.end({ timeout: 0 }).catch(() => {});
    const message = describeTeamError(error, options.url);
    if (message !== state.lastError) logger.warn("team: sync failed", { error: message });
    state.connected = false;
    state.failures++;
    state.lastError = message;
    state.lastErrorAt = new Date().toISOString();
    state.notified = true; // pull everything missed once it is back
  }

  function checkpoint(): void {
    try {
      store.checkpointWal();
    } catch (error) {
      logger.debug("team: WAL checkpoint failed", { error: String(error) });
    }
  }

  function runCycle(): Promise<void> {
    running ??= (async () => {
      try {
        await cycle();
        if (!state.connected) logger.info("team: connected", { url: redactTeamUrl(options.url) });
        state.connected = true;
        state.failures = 0;
        state.lastError = null;
        state.lastSyncAt = new Date().toISOString();
      } catch (error) {
        fail(error);
      } finally {
        // The collector's connection leaves checkpoints to this one, database up or down.
        checkpoint();
        running = null;
        options.onStatus?.();
      }
    })();
    return running;
  }

  /** False when the cycle went `CYCLE_TIMEOUT_MS` without getting anything done. */
  async function settlesWhileProgressing(cycle: Promise<void>): Promise<boolean> {
    state.progressAt = Date.now();
    for (;;) {
      const left = state.progressAt + CYCLE_TIMEOUT_MS - Date.now();
      if (left <= 0) return false;
      if (await settlesWithin(cycle, left)) return true;
    }
  }

  const loop = (async () => {
    while (!closed) {
      if (!await settlesWhileProgressing(runCycle())) {
        // A hung connection: drop the cycle and its pool; the next one starts afresh.
        fail(new Error(`a sync cycle made no progress for ${CYCLE_TIMEOUT_MS / 1000} s`));
        running = null;
      }
      // A teammate committed while this cycle ran: pull now, not after a pause.
      if (state.notified && state.failures === 0) continue;
      const pause = state.failures === 0
        ? options.pollMs
        : Math.min(options.pollMs * 2 ** state.failures, MAX_BACKOFF_MS);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pause);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();

  return {
    status() {
      const counts = store.teamCounts();
      return {
        url: redactTeamUrl(options.url),
        role: teamUser(options.url),
        client_id: clientId,
        connected: state.connected,
        ...counts,
        granted: state.granted,
        published: state.published,
        pulled: state.pulled,
        last_error: state.lastError,
        last_error_at: state.lastErrorAt,
        last_sync_at: state.lastSyncAt,
      };
    },
    async syncNow() {
      if (running) await running;
      state.notified = true;
      await runCycle();
    },
    async close() {
      closed = true;
      wake();
      // Ending the pool first fails a query waiting on an unreachable server at once.
      await sql.end({ timeout: 2 });
      await loop;
    },
  };
}
