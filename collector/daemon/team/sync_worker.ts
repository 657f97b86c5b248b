/**
 * The team sync Worker's entry: the PostgreSQL client and the sync loop (`sync.ts`) on their own
 * event loop, over their own SQLite connection to the collector's database (WAL lets the two
 * connections work side by side; every write is one immediate transaction). The collector
 * (`worker.ts`) starts it, restarts it when it dies and stops it on shutdown.
 *
 * Nothing here catches an error the client throws outside any caller: such an error ends this
 * Worker, never the collector, and a fresh Worker starts from a clean state (the outbox and the
 * cursors are in SQLite, so nothing is lost).
 *
 * @module
 */
import { openSqliteStorage, writeTurns } from "@kiro-learn/core/storage";
import type { Logger } from "../runtime/mod.ts";
import { startTeamSync } from "./sync.ts";
import type { TeamWorkerReply, TeamWorkerRequest } from "./worker.ts";

/** The Worker's scope (the DOM lib types `self` as a window). */
const scope = self as unknown as {
  postMessage(message: TeamWorkerReply): void;
  onmessage: ((event: MessageEvent<TeamWorkerRequest>) => void) | null;
  close(): void;
};

function post(message: TeamWorkerReply): void {
  scope.postMessage(message);
}

/** Log lines go to the collector, which writes them with its own logger. */
function workerLogger(debugEnabled: boolean): Logger {
  const line =
    (level: "debug" | "info" | "warn" | "error") =>
    (msg: string, fields?: Record<string, unknown>) => {
      if (level === "debug" && !debugEnabled) return;
      post({ type: "log", level, msg, fields });
    };
  return {
    debug: line("debug"),
    info: line("info"),
    warn: line("warn"),
    error: line("error"),
    debugEnabled,
  };
}

let running: { sync: ReturnType<typeof startTeamSync>; close(): void } | null = null;

scope.onmessage = async (event) => {
  const request = event.data;
  if (request.type === "start") {
    const store = openSqliteStorage(request.dbPath, { home: request.home });
    const sync = startTeamSync({
      url: request.url,
      password: request.password,
      store,
      logger: workerLogger(request.debug),
      pollMs: request.pollMs,
      turns: request.writeTurns ? writeTurns(request.writeTurns) : undefined,
      onApplied: (applied) => post({ type: "applied", applied }),
      onStatus: () => post({ type: "status", status: sync.status() }),
    });
    running = { sync, close: () => store.close() };
    post({ type: "status", status: sync.status() });
  } else if (request.type === "sync_now") {
    await running?.sync.syncNow();
    if (running) post({ type: "status", status: running.sync.status() });
    post({ type: "synced", id: request.id });
  } else if (request.type === "close") {
    if (running) {
      await running.sync.close();
      running.close();
      running = null;
    }
    post({ type: "closed" });
    scope.close();
  }
};
