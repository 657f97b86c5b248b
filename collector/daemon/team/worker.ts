/**
 * The collector's side of team sync: the sync runs in a Worker (`sync_worker.ts`), supervised
 * from here.
 *
 * Why a Worker: the PostgreSQL client can throw outside any caller when its server dies under
 * it (a write to a closed socket; on Deno 2.9.6 also a `TypeError` inside the runtime's immediate
 * queue, `_idleNext`, which nothing in the collector could catch). On the collector's own event
 * loop that ended the collector, which must keep serving hooks whatever PostgreSQL does. In a
 * Worker it ends the Worker: this supervisor restarts it with a growing pause, and status shows
 * how often (`worker_restarts`). The Worker holds only what sync needs: the network to the team
 * database's `host:port`, read/write of the database file (and its WAL and shared-memory files),
 * and read of its own code; no environment beyond the client's two variables, no run, no FFI, no
 * sys, no import from anywhere.
 *
 * @module
 */
import { postgresHostPort } from "@kiro-learn/core/settings";
import { settlesWithin } from "@kiro-learn/core/settle";
import type { TeamApplied, TeamStore, WriteTurns } from "@kiro-learn/core/storage";
import type { Logger } from "../runtime/mod.ts";
import {
  daemonWorkerOptions,
  TEAM_CLIENT_ENV,
  TEAM_SYNC_WORKER,
  teamWorkerCodePaths,
} from "../permissions/mod.ts";
import { redactTeamUrl, teamUser } from "./connect.ts";
import type { TeamSync, TeamSyncStatus } from "./sync.ts";

/** What the collector asks of the Worker. */
export type TeamWorkerRequest =
  | {
    type: "start";
    url: string;
    password: string;
    dbPath: string;
    home?: string;
    pollMs: number;
    debug: boolean;
    /** The collector's write turns' shared memory (`WriteTurns.buffer`). */
    writeTurns?: SharedArrayBuffer;
  }
  | { type: "sync_now"; id: number }
  | { type: "close" };

/** What the Worker tells the collector. */
export type TeamWorkerReply =
  | { type: "status"; status: TeamSyncStatus }
  | { type: "applied"; applied: TeamApplied }
  | {
    type: "log";
    level: "debug" | "info" | "warn" | "error";
    msg: string;
    fields?: Record<string, unknown>;
  }
  | { type: "synced"; id: number }
  | { type: "closed" };

/** Team status as the collector reports it: the sync's, and its Worker's. */
export interface TeamWorkerStatus extends TeamSyncStatus {
  /** `running`, or `restarting` (the Worker died and waits for its next start). */
  worker: "running" | "restarting";
  /** How often the sync Worker died and was started again since the collector started. */
  worker_restarts: number;
}

/** A sync running in a supervised Worker. */
export interface TeamSyncWorker extends TeamSync {
  /** Status, with the Worker's state. */
  status(): TeamWorkerStatus;
}

/** What {@linkcode startTeamSyncWorker} needs. */
export interface TeamSyncWorkerOptions {
  /** The team database (`team.url`, no password). */
  url: string;
  /** The role's password (from the team password file). */
  password: string;
  /** The collector's SQLite database file (the Worker opens its own connection to it). */
  dbPath: string;
  /** The collector's own store (backlog and counts for status come from it). */
  store: TeamStore;
  /** The write turns the collector's store announces its writes in (the pull gives way). */
  writeTurns?: WriteTurns;
  /** Home directory (as the collector's store has it). */
  home?: string;
  /** Logger (the Worker's lines are written through it; never given the password). */
  logger: Logger;
  /** How often the outbox is looked at. */
  pollMs: number;
  /**
   * Run the Worker with only the permissions above (needs `--unstable-worker-options`, which
   * the daemon has; without it Deno aborts the process when the Worker starts). Default true;
   * in-process tests under `deno test -A` pass false, and the Worker inherits their permissions.
   */
  sandbox?: boolean;
  /** Told what each pull changed here (embeddings, live feed). */
  onApplied?: (applied: TeamApplied) => void;
  /** First pause before a restart (default 1 s; it doubles up to 30 s while the Worker keeps dying). */
  restartMs?: number;
}

/** The longest pause before a dead Worker is started again. */
const MAX_RESTART_MS = 30_000;
/** How long a closing Worker may take to end its pool and its SQLite connection. */
const CLOSE_TIMEOUT_MS = 5_000;

/** The permissions of the sync Worker: the team database and the SQLite files, nothing else. */
export function teamWorkerPermissions(
  options: { url: string; dbPath: string },
): Deno.PermissionOptionsObject {
  const files = [options.dbPath, `${options.dbPath}-wal`, `${options.dbPath}-shm`];
  return {
    net: [postgresHostPort(options.url)],
    // Its own code (to load it), and the database.
    read: [...teamWorkerCodePaths(), ...files],
    write: files,
    env: [...TEAM_CLIENT_ENV],
    run: false,
    ffi: false,
    sys: false,
    import: false,
  };
}

/** Starts the sync in a Worker and keeps it running until `close()`. */
export function startTeamSyncWorker(options: TeamSyncWorkerOptions): TeamSyncWorker {
  const { logger, store } = options;
  const clientId = store.teamClientId();
  const firstPause = options.restartMs ?? 1_000;
  let worker: Worker | null = null;
  let last: TeamSyncStatus | null = null;
  /** Published and pulled by Workers that died (status counts since the collector started). */
  const before = { published: 0, pulled: 0 };
  let restarts = 0;
  let deaths = 0; // in a row, without a successful cycle between
  let restartTimer: ReturnType<typeof setTimeout> | undefined;
  let workerError: { message: string; at: string } | null = null;
  let closing = false;
  let nextId = 1;
  const waiting = new Map<number, () => void>();
  let closed: (() => void) | null = null;

  function spawn(): void {
    const current = new Worker(
      new URL(`file://${TEAM_SYNC_WORKER}`),
      daemonWorkerOptions("kiro-learn-team-sync", {
        permissions: teamWorkerPermissions(options),
        sandbox: options.sandbox ?? true,
      }),
    );
    worker = current;
    current.onmessage = (event: MessageEvent<TeamWorkerReply>) => {
      if (worker !== current) return;
      const reply = event.data;
      if (reply.type === "status") {
        last = reply.status;
        if (reply.status.last_error === null && reply.status.last_sync_at !== null) {
          deaths = 0;
          workerError = null;
        }
      } else if (reply.type === "applied") {
        options.onApplied?.(reply.applied);
      } else if (reply.type === "log") {
        logger[reply.level](reply.msg, reply.fields);
      } else if (reply.type === "synced") {
        waiting.get(reply.id)?.();
        waiting.delete(reply.id);
      } else if (reply.type === "closed") {
        closed?.();
      }
    };
    current.onerror = (event) => {
      // The Worker's uncaught error stops here: the collector goes on.
      event.preventDefault();
      died(current, event.message || String(event.error));
    };
    current.onmessageerror = () => died(current, "it sent an unreadable message");
    current.postMessage(
      {
        type: "start",
        url: options.url,
        password: options.password,
        dbPath: options.dbPath,
        home: options.home,
        pollMs: options.pollMs,
        debug: logger.debugEnabled,
        writeTurns: options.writeTurns?.buffer,
      } satisfies TeamWorkerRequest,
    );
  }

  function died(current: Worker, message: string): void {
    if (worker !== current) return;
    current.terminate();
    worker = null;
    if (last) {
      before.published += last.published;
      before.pulled += last.pulled;
      last = { ...last, connected: false, published: 0, pulled: 0 };
    }
    // Whoever waits on a cycle of the dead Worker is released (its cycle is gone).
    for (const release of waiting.values()) release();
    waiting.clear();
    if (closing) return closed?.();
    deaths++;
    const pause = Math.min(firstPause * 2 ** (deaths - 1), MAX_RESTART_MS);
    workerError = {
      message: `the team sync worker stopped (${message}); it starts again in ` +
        `${Math.ceil(pause / 1000)} s, and nothing waiting to be published is lost`,
      at: new Date().toISOString(),
    };
    logger.warn("team: sync worker died; restarting", { error: message, pause_ms: pause });
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      if (closing) return;
      restarts++;
      spawn();
    }, pause);
  }

  spawn();

  return {
    status() {
      const counts = store.teamCounts();
      const error = last?.last_error ?? null;
      // The Worker's death is the last error until a new Worker reports its own outcome.
      const showDeath = workerError !== null &&
        (error === null || (last?.last_error_at ?? "") < workerError.at);
      return {
        url: redactTeamUrl(options.url),
        role: teamUser(options.url),
        client_id: clientId,
        connected: worker !== null && (last?.connected ?? false),
        ...counts,
        granted: last?.granted ?? null,
        published: before.published + (last?.published ?? 0),
        pulled: before.pulled + (last?.pulled ?? 0),
        last_error: showDeath ? workerError!.message : error,
        last_error_at: showDeath ? workerError!.at : last?.last_error_at ?? null,
        last_sync_at: last?.last_sync_at ?? null,
        worker: worker === null ? "restarting" : "running",
        worker_restarts: restarts,
      };
    },
    async syncNow() {
      const current = worker;
      if (current === null) return;
      const id = nextId++;
      const { promise, resolve } = Promise.withResolvers<void>();
      waiting.set(id, resolve);
      current.postMessage({ type: "sync_now", id } satisfies TeamWorkerRequest);
      await promise;
    },
    async close() {
      closing = true;
      clearTimeout(restartTimer);
      const current = worker;
      if (current === null) return;
      const { promise, resolve } = Promise.withResolvers<void>();
      closed = resolve;
      current.postMessage({ type: "close" } satisfies TeamWorkerRequest);
      await settlesWithin(promise, CLOSE_TIMEOUT_MS);
      // No Worker outlives the collector, whether it closed in time or not.
      current.terminate();
      worker = null;
      for (const release of waiting.values()) release();
      waiting.clear();
    },
  };
}
