/**
 * The size limits a shim needs, re-exported from core's limits module directly: importing
 * them through `@kiro-learn/core/schemas` would also build every zod schema on each hook
 * (about 15 ms), which the shim never uses.
 *
 * @module
 */
export {
  MAX_EVENT_BODY_CHARS,
  SHIM_BODY_CAP_BYTES,
  TRUNCATION_MARKER,
} from "../core/schemas/limits.ts";
