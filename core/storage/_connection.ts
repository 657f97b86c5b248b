/**
 * One SQLite connection as the storage modules share it: prepared statements cached by their SQL,
 * one transaction helper, and the document-frequency cache.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { WriteTurns } from "./write_turns.ts";

/** The connection and what the modules share over it. */
export class Connection {
  /** The raw connection. */
  readonly db: DatabaseSync;
  /** Home directory, to show project paths as `~/...`. */
  readonly home?: string;
  /**
   * Document frequencies drift slowly; a short-lived cache keeps fts5vocab lookups (which cost
   * time in proportion to a term's postings) off the hot path for the words people reuse.
   */
  readonly dfCache: Map<string, { df: number; at: number; corpus: number }> = new Map();
  #statements = new Map<string, StatementSync>();
  #turns?: WriteTurns;

  /**
   * Wraps an open, migrated connection. With `turns`, every transaction announces itself there
   * (a background writer on another connection gives way to it).
   */
  constructor(db: DatabaseSync, options: { home?: string; turns?: WriteTurns } = {}) {
    this.db = db;
    this.home = options.home;
    this.#turns = options.turns;
  }

  /** The prepared statement for `sql` (prepared once). */
  stmt(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** Runs `fn` in one immediate transaction; rolls back if it throws. */
  transaction<T>(fn: () => T): T {
    return this.#turns ? this.#turns.announce(() => this.#transaction(fn)) : this.#transaction(fn);
  }

  #transaction<T>(fn: () => T): T {
    this.db.exec("BEGIN IMMEDIATE");
    try {
      const result = fn();
      this.db.exec("COMMIT");
      return result;
    } catch (error) {
      if (this.db.isTransaction) this.db.exec("ROLLBACK");
      throw error;
    }
  }

  /** Forgets every prepared statement (before the connection closes). */
  clear(): void {
    this.#statements.clear();
  }
}

/**
 * Whether `error` is SQLite's "another connection holds the lock and the busy timeout ran out"
 * (`SQLITE_BUSY`, `SQLITE_LOCKED`): a write that may succeed if tried again, unlike a full disk.
 */
export function isDatabaseBusy(error: unknown): boolean {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  // node:sqlite gives the primary code, or an extended one whose low byte is it.
  if (typeof code === "number") return [5, 6].includes(code & 0xff);
  return /database (table )?is locked|database is busy/.test(String(error));
}
