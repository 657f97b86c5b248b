/**
 * The `kiro-learn-memory` MCP server: tools and formatting (the collector client is
 * `@kiro-learn/core/api`'s). The entry
 * point is `main.ts`; the command line the installer registers is `mcpCommand` in
 * `@kiro-learn/core/launch` (the collector may import only core).
 *
 * @module
 */
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
  SERVER_DESCRIPTION,
  SERVER_NAME,
  startupContext,
  type StartupContextOptions,
} from "./server.ts";
export { registerTools, TOOL_NAMES, type ToolContext } from "./tools.ts";
