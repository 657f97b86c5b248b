/**
 * XML framing and parsing for the model calls: compressor input and output, the reconciliation
 * judge, and the compactor. Pure functions, no I/O.
 *
 * @module
 */
export { escapeXml, unescapeXml } from "./escape.ts";
export {
  type Chunk,
  chunkEntries,
  type ChunkOptions,
  frameEntry,
  frameToFit,
  isLifecycleNote,
  isTrivialEntry,
  MAX_TOOL_NAME_CHARS,
  MIN_CHUNK_CAP_BYTES,
} from "./framing.ts";
export {
  normalizeObservationType,
  type ParsedRecord,
  parseMemoryRecords,
  type ParseResult,
  type RecordFields,
} from "./records.ts";
export {
  frameJudgeRequest,
  type JudgeCandidate,
  type JudgeMergedRecord,
  type JudgeNeighbor,
  type JudgeRequest,
  type JudgeResult,
  MAX_MERGED_IDS,
  parseJudgeResponse,
} from "./judge.ts";
export {
  COMPACTION_INSTRUCTIONS,
  frameCompactionRequest,
  parseCompactedEntries,
} from "./compaction.ts";
export { truncateChars, utf8Length } from "./text.ts";
