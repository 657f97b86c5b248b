/**
 * The ingest pipeline: validate → dedup → scrub and redact → one transaction (event + queue row)
 * → notify the extraction watcher → inline retrieval for prompts.
 *
 * One repeat is recognised: Kiro CLI 2.x hands the first prompt to `agentSpawn` (recorded as
 * session start + prompt, with its retrieval) and then fires `userPromptSubmit` with the same
 * prompt. In a session whose start this pipeline saw (an event ingested with `resume`), the
 * second prompt, when it is the same text as the first and within
 * {@linkcode PROMPT_REPEAT_WINDOW_MS} by the events' `valid_time`, is therefore not stored and gets
 * no retrieval (its context was already given); the answer says `repeat_of`. Later identical
 * prompts ("yes", "go on") are stored as usual. The shim cannot do this: each hook is a new
 * process with no state.
 *
 * **Project identity moves happen here.** A project's id used to be its path's digest; it is
 * now its repository's remote's (see core's `resolveProject`). The first event of a project
 * under its remote-derived namespace carries `source.project_path`, from which the collector
 * knows the namespace the same project had before, and moves all of that namespace's rows into
 * the new one (storage `moveNamespace`: one transaction, idempotent) before the event is
 * written or anything is retrieved for it. Why here and not at collector start: the collector
 * may read only its data dir, so it cannot open a repository's git config to learn its remote
 * (granting it every project folder would widen its sandbox for a one-time job, and folders
 * move or vanish); the shim that sent the event already resolved the identity with the same
 * `resolveProject` every other surface uses, so the collector takes that answer instead of
 * computing a second one. The MCP server and the CLI, which send no events, name their project
 * through {@linkcode IngestPipeline.identifyProject} before they read. Projects never opened
 * again keep their old namespace, which is then their only one, so every project is listed
 * once either way. An event still naming a moved namespace (spooled before the upgrade) is
 * filed under the new one.
 *
 * @module
 */
import type { EventQuery } from "@kiro-learn/core/api/wire";
import { legacyNamespaceFor, projectIdFromNamespace } from "@kiro-learn/core/project";
import { scrubEvent } from "@kiro-learn/core/privacy";
import { type Event, EventSchema } from "@kiro-learn/core/schemas";
import { isDatabaseBusy, type NamespaceMove, type Storage } from "@kiro-learn/core/storage";
import { setImmediate } from "node:timers";
import { RecentIds } from "./_dedup.ts";

/** Called after an event and its queue row are durable. */
export type EventStoredHook = (info: {
  project_id: string;
  namespace: string;
  kind: Event["kind"];
  bytes: number;
  event: Event;
}) => void;

/** Called after a project's old namespace was moved into its new one (rows were moved). */
export type NamespaceMovedHook = (info: {
  from: string;
  to: string;
  to_project_id: string;
  moved: NamespaceMove;
}) => void;

/**
 * What the pipeline needs. `R` is what retrieval answers; the pipeline only hands it back, so it
 * does not depend on how retrieval works.
 */
export interface IngestPipelineOptions<R> {
  /** Where events go. */
  storage: Storage;
  /**
   * Runs inline retrieval for a (scrubbed) prompt event; `sessionStart`: lead with the
   * session-start block if the session has not had it (`retrieve-start`).
   */
  retrieve: (event: Event, options?: { sessionStart?: boolean }) => Promise<R>;
  /** Builds the session-start resume block. */
  resume?: (event: Event) => Promise<R>;
  /** Notified once per newly stored event (the extraction watcher, the live feed). */
  onStored?: EventStoredHook;
  /** Capacity of the recent-id set. */
  dedupCapacity?: number;
  /** Notified when a project's old namespace was moved into its new one. */
  onMoved?: NamespaceMovedHook;
}

/** What one ingest asks besides storing (see {@linkcode ingestOptions}). */
export interface IngestOptions {
  /** A prompt's context. */
  retrieve?: boolean;
  /** With the session-start block first, while the session has not had it. */
  sessionStart?: boolean;
  /** The session-start block. */
  resume?: boolean;
  /** Store without queueing for extraction. */
  history?: boolean;
  /**
   * Rebuilt from a record of the past: not stored when the session already holds the same
   * event as the hooks recorded it (see {@linkcode BACKFILL_MATCH_WINDOW_MS}).
   */
  backfill?: boolean;
}

/**
 * How far apart a hook's event and the same event rebuilt from the transcript may be in time:
 * the hook fires as the line is written (a long turn's `Stop` fires when it ends, right after
 * its last answer); anything further apart is another event with the same text.
 */
export const BACKFILL_MATCH_WINDOW_MS = 5 * 60_000;

/** The ingest options an ingest's wire query asks for: one mapping for every route. */
export function ingestOptions(query: EventQuery): IngestOptions {
  return {
    retrieve: query === "retrieve" || query === "retrieve-start",
    sessionStart: query === "retrieve-start",
    resume: query === "resume",
    history: query === "history",
    backfill: query === "backfill",
  };
}

/** Outcome of one ingest. */
export type IngestOutcome<R = unknown> =
  | {
    ok: true;
    event_id: string;
    stored: boolean;
    retrieval?: R;
    repeat_of?: string;
    /** A backfilled event the hooks had recorded already: that event's id. */
    same_as?: string;
  }
  | { ok: false; error: string; details?: unknown };

interface PendingWrite {
  event: Event;
  project_id: string;
  enqueue: boolean;
  resolve: (stored: boolean) => void;
  reject: (error: unknown) => void;
}

/** Most events one group commit writes. */
const MAX_GROUP = 256;

/** How long a group commit keeps trying while another connection holds the database's lock. */
const BUSY_RETRY_MS = 30_000;

/** How close (by `valid_time`) a session's second prompt must follow an identical first one. */
export const PROMPT_REPEAT_WINDOW_MS = 60_000;

/** Sessions whose first prompt is remembered for repeat detection. */
const PROMPT_MEMORY_SESSIONS = 2_000;

interface SessionPrompts {
  /** The session's first prompt, once seen. */
  first?: { event_id: string; text: string; at: number };
  /** Prompts seen in the session so far (only the second can be a repeat). */
  seen: number;
  /** The event id of the recognised repeat, so a retry of it is recognised too. */
  repeat_id?: string;
}

/** Validates, stores and (for prompts) retrieves, in the design's order. */
export class IngestPipeline<R = unknown> {
  #options: IngestPipelineOptions<R>;
  #recent: RecentIds;
  #pending: PendingWrite[] = [];
  #inFlight = new Map<string, Promise<boolean>>();
  #flushScheduled = false;
  #sessions = new Map<string, SessionPrompts>();
  /** Old namespaces already moved (or found empty) by this process, and moves under way. */
  #moves = new Map<string, Promise<void>>();

  /** Creates the pipeline. */
  constructor(options: IngestPipelineOptions<R>) {
    this.#options = options;
    this.#recent = new RecentIds(options.dedupCapacity ?? 10_000);
  }

  /**
   * Ingests one parsed JSON value. Invalid input is refused and changes nothing; a storage
   * failure throws (the caller answers 500) after rolling the dedup entry back.
   */
  async ingest(input: unknown, options: IngestOptions = {}): Promise<IngestOutcome<R>> {
    const parsed = EventSchema.safeParse(input);
    if (!parsed.success) {
      return { ok: false, error: "validation failed", details: parsed.error.issues };
    }
    const event: Event = await this.#settleNamespace(scrubEvent(parsed.data));
    const projectId = projectIdFromNamespace(event.namespace) ?? event.namespace;
    const repeatOf = this.#repeatedPrompt(event, options.resume === true);
    if (repeatOf !== null) {
      return { ok: true, event_id: event.event_id, stored: false, repeat_of: repeatOf };
    }
    if (options.backfill) {
      const same = await this.#options.storage.findSameEvent(event, {
        windowMs: BACKFILL_MATCH_WINDOW_MS,
      });
      if (same !== null) {
        return { ok: true, event_id: event.event_id, stored: false, same_as: same };
      }
    }
    let stored = false;
    if (this.#recent.add(event.event_id)) {
      const write = this.#write(event, projectId, { enqueue: !options.history });
      this.#inFlight.set(event.event_id, write);
      try {
        stored = await write;
      } catch (error) {
        this.#recent.delete(event.event_id);
        throw error;
      } finally {
        this.#inFlight.delete(event.event_id);
      }
      if (stored && !options.history) {
        this.#options.onStored?.({
          project_id: projectId,
          namespace: event.namespace,
          kind: event.kind,
          bytes: JSON.stringify(event.body).length,
          event,
        });
      }
    } else {
      // A duplicate of an event whose first write has not committed yet must not be answered
      // before that write is durable: its sender (a shim retry, the spool drain) deletes its
      // copy on a 200. If the first write fails, so does this request.
      await this.#inFlight.get(event.event_id);
    }
    const outcome: IngestOutcome<R> = { ok: true, event_id: event.event_id, stored };
    if (options.retrieve && event.kind === "prompt") {
      outcome.retrieval = await this.#options.retrieve(event, {
        sessionStart: options.sessionStart === true,
      });
    } else if (options.resume && this.#options.resume) {
      outcome.retrieval = await this.#options.resume(event);
    }
    return outcome;
  }

  /**
   * A client (the MCP server, the CLI) works in `namespace`, resolved for the project at
   * `projectPath`: move the project's older namespace into it, as its first event would. The
   * rows moved, or null when nothing was moved (already done, or nothing there).
   */
  async identifyProject(namespace: string, projectPath: string): Promise<NamespaceMove | null> {
    const legacy = legacyNamespaceFor(namespace, projectPath);
    return legacy === null ? null : await this.#moveOnce(legacy, namespace);
  }

  // Moves the project's old namespace into the event's (once per process; see the module doc),
  // and files an event that names a moved namespace under the new one.
  async #settleNamespace(event: Event): Promise<Event> {
    const path = event.source.project_path;
    const legacy = path === undefined ? null : legacyNamespaceFor(event.namespace, path);
    if (legacy === null) {
      const movedTo = await this.#options.storage.namespaceMovedTo(event.namespace);
      if (movedTo !== null) return { ...event, namespace: movedTo };
      // Rows may arrive under an old namespace after it was found empty (a spool drained
      // late): look at it again on the project's next event.
      this.#moves.delete(event.namespace);
      return event;
    }
    await this.#moveOnce(legacy, event.namespace);
    return event;
  }

  // Concurrent callers share one move; a failed one is tried again by the next caller.
  async #moveOnce(from: string, to: string): Promise<NamespaceMove | null> {
    const pending = this.#moves.get(from);
    if (pending !== undefined) {
      await pending;
      return null;
    }
    const move = this.#move(from, to);
    const shared = move.then(() => {});
    shared.catch(() => {}); // its waiters see the failure; no one else must
    this.#moves.set(from, shared);
    try {
      return await move;
    } catch (error) {
      this.#moves.delete(from);
      throw error;
    }
  }

  async #move(from: string, to: string): Promise<NamespaceMove | null> {
    const toProjectId = projectIdFromNamespace(to)!;
    const moved = await this.#options.storage.moveNamespace({
      from,
      to,
      fromProjectId: projectIdFromNamespace(from)!,
      toProjectId,
    });
    if (!Object.values(moved).some((n) => n > 0)) return null;
    this.#options.onMoved?.({ from, to, to_project_id: toProjectId, moved });
    return moved;
  }

  // The session's first prompt, when `event` is its second prompt and repeats it (see module doc).
  // Only sessions whose start was seen here (an event ingested with `resume`) are tracked.
  #repeatedPrompt(event: Event, sessionStart: boolean): string | null {
    const key = `${event.namespace}\u0000${event.session_id}`;
    if (sessionStart) {
      if (!this.#sessions.has(key)) this.#sessions.set(key, { seen: 0 });
      if (this.#sessions.size > PROMPT_MEMORY_SESSIONS) {
        this.#sessions.delete(this.#sessions.keys().next().value as string);
      }
    }
    const session = this.#sessions.get(key);
    if (session === undefined || event.kind !== "prompt" || event.body.type !== "text") return null;
    const text = event.body.content.trim();
    const at = Date.parse(event.valid_time);
    const first = session.first;
    if (first === undefined) {
      session.first = { event_id: event.event_id, text, at };
      session.seen = 1;
      return null;
    }
    // A retry of the first prompt itself is the ordinary event-id dedup's business.
    if (first.event_id === event.event_id) return null;
    if (session.repeat_id === event.event_id) return first.event_id;
    session.seen++;
    const repeat = session.seen === 2 && first.text === text &&
      Math.abs(at - first.at) <= PROMPT_REPEAT_WINDOW_MS;
    if (!repeat) return null;
    session.repeat_id = event.event_id;
    return first.event_id;
  }

  // Group commit: requests that arrive while the loop is busy share one transaction, and each
  // is answered only after that transaction committed.
  #write(event: Event, projectId: string, options: { enqueue: boolean }): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#pending.push({
        event,
        project_id: projectId,
        enqueue: options.enqueue,
        resolve,
        reject,
      });
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  async #flush(): Promise<void> {
    const batch = this.#pending.splice(0, MAX_GROUP);
    if (this.#pending.length > 0) setImmediate(() => this.#flush());
    else this.#flushScheduled = false;
    const items = batch.map((p) => ({
      event: p.event,
      project_id: p.project_id,
      enqueue: p.enqueue,
    }));
    const giveUpAt = Date.now() + BUSY_RETRY_MS;
    for (let attempt = 1;; attempt++) {
      try {
        const stored = await this.#options.storage.ingestEvents(items);
        batch.forEach((p, i) => p.resolve(stored[i]));
        return;
      } catch (error) {
        // Another connection (team sync, a CLI command) held the write lock past the busy
        // timeout: the events wait their turn, with the event loop free meanwhile, rather than
        // fail. Any other error fails the batch at once.
        if (isDatabaseBusy(error) && Date.now() < giveUpAt) {
          await new Promise((r) => setTimeout(r, Math.min(50 * attempt, 500)));
          continue;
        }
        for (const p of batch) p.reject(error);
        return;
      }
    }
  }
}
