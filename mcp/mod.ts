/**
 * The `kiro-learn-memory` MCP server: tools, formatting and the collector client. The entry
 * point is `main.ts`; the command line the installer registers is `mcpCommand` in
 * `@kiro-learn/core/launch` (the collector may import only core).
 *
 * @module
 */
export {
  type CollectorClient,
  type CollectorClientOptions,
  CollectorError,
  CollectorHttpError,
  CollectorPermissionError,
  CollectorTimeoutError,
  CollectorUnavailableError,
  collectorUrl,
  createCollectorClient,
  DEFAULT_TIMEOUT_MS,
  type ListMemoriesOptions,
  type MemoryPage,
  type MemoryWithSources,
  START_HINT,
} from "./collector_client.ts";
export {
  type BuildSessionSummaryOptions,
  buildSessionSummaryRecord,
  formatSessionSummary,
  SESSION_SUMMARY_HEADINGS,
  type SessionSummaryInput,
  type SessionSummaryText,
  SUMMARY_TRUNCATED_MARKER,
} from "./session_summary.ts";
export {
  createMemoryServer,
  projectDir,
  SERVER_NAME,
  startupContext,
  type StartupContextOptions,
} from "./server.ts";
export { registerTools, TOOL_NAMES, type ToolContext } from "./tools.ts";
