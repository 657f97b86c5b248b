/**
 * Extraction: the service that watches the per-project queues and distils batches of events
 * into memory records (LLM over ACP, or the heuristic extractor), one transaction per chunk.
 *
 * @module
 */
export * from "./llm_extractor.ts";
export * from "./run.ts";
export * from "./service.ts";
