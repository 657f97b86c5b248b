/**
 * What every route handler may use.
 *
 * @module
 */
import type { Settings } from "@kiro-learn/core/settings";
import type { Storage } from "@kiro-learn/core/storage";
import type { ExtractionService } from "../extraction/mod.ts";
import type { IngestPipeline } from "../ingest/mod.ts";
import type { ModeSearcher, RetrievalResult } from "../retrieval/mod.ts";
import type { EventBus } from "../runtime/mod.ts";
import type { Latencies } from "../runtime/mod.ts";
import type { Logger } from "../runtime/mod.ts";

/** Shared state of one running collector. */
export interface CollectorContext {
  /** The one ranking of every search surface (the hook injects its default mode). */
  search: ModeSearcher;
  /** The database. */
  storage: Storage;
  /** The ingest pipeline. */
  pipeline: IngestPipeline<RetrievalResult>;
  /** Validated settings. */
  settings: Settings;
  /** Logger. */
  logger: Logger;
  /** API bearer token. */
  token: string;
  /** Extraction (status, forced runs). */
  extraction?: ExtractionService;
  /** Live-feed bus. */
  bus?: EventBus;
  /** Extra facts for `/v1/stats` and `status` (queue, spool, extraction, embeddings). */
  status?: () => Record<string, unknown>;
  /** Recent ingest and retrieval latencies for `/v1/stats` (createApp makes them if absent). */
  latency?: Latencies;
  /** The viewer (set by createApp); `close()` ends live feeds a graceful shutdown would await. */
  viewer?: { close(): void };
}
