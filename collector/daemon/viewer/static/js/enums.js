// Generated from the collector's own constants by collector/daemon/viewer/_enums.ts; do not
// edit. Regenerate: deno run --allow-write collector/daemon/viewer/_enums.ts

/** What a memory records. */
export const OBSERVATION_TYPES = /** @type {const} */ ([
  "tool_use",
  "decision",
  "error",
  "discovery",
  "pattern",
  "session_summary",
]);

/** How a memory was made. */
export const STRATEGIES = /** @type {const} */ ([
  "llm-summary",
  "llm-reconciled",
  "heuristic",
  "mcp_observation",
  "mcp_session_summary",
  "git-commit",
]);

/** The live feed's message types. */
export const FEED_TYPES = /** @type {const} */ ([
  "event",
  "run",
  "retrieval",
  "record_saved",
  "records_deleted",
]);

/** The `data-page` names the page shell renders. */
export const PAGE_NAMES = /** @type {const} */ ([
  "overview",
  "feed",
  "memories",
  "memory",
  "injections",
  "graph",
]);

/** How a retrieval for a prompt ended. */
export const RETRIEVAL_OUTCOMES = /** @type {const} */ ([
  "ok",
  "empty",
  "timeout",
  "error",
]);

/** Where the viewer session's key travels and is kept (see the collector's sessions.ts). */
export const SESSION_KEY = /** @type {const} */ ({
  header: "x-kiro-learn-session-key",
  query: "session_key",
  code: "code",
  storage: "kiro-learn.session-key",
});
