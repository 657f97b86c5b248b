// The JSON shapes the viewer reads from the API, as JSDoc types for client_check_test.ts. Only
// type annotations import this module (`import("./types.js")`), so the browser never loads it.

/**
 * @typedef {{record_id: string, namespace: string, strategy: string, title: string,
 *   summary: string, facts: string[], concepts: string[], files_touched: string[],
 *   observation_type: string, source_event_ids: string[], created_at: string}} MemoryRecord
 * @typedef {{namespace: string, project_id: string, display_name: string, event_count: number,
 *   memory_count: number}} Project
 * @typedef {{count: number, total: number, p50: number|null, p95: number|null,
 *   p99: number|null, max: number|null}} LatencySummary
 * @typedef {{event_id: string, session_id: string, namespace: string, kind: string,
 *   valid_time: string, source: {surface: string}, body: any}} StoredEvent
 * @typedef {{id: number, created_at: string, namespace: string, query: string,
 *   results: {record_id: string, score: number, title: string}[], latency_ms: number,
 *   tokens: number, outcome: string, event_id?: string}} Retrieval
 * @typedef {{id?: number, project_id: string, namespace: string, started_at: string,
 *   duration_ms: number, strategy: string, outcome: string, entries: number, records: number,
 *   error?: string|null}} Run
 * @typedef {Record<string, any>} Stats
 */

export {};
