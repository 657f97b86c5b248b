/**
 * Hook shims: one small entry per agent (`kiro_cli.ts`, `kiro_ide.ts`, `claude_code.ts`) and
 * the pieces they share, plus the tools around them (launch commands with narrow permissions,
 * replay of recorded sessions, compilation).
 *
 * The entries themselves import only the modules they need (never this one), so a hook firing
 * loads no replay, compile or permission code.
 *
 * @module
 */
export { claudeCodePlan, type ClaudePlanOptions } from "./claude_code.ts";
export { isInternal, readShimEnv, SHIM_ENV_VARS, type ShimEnv } from "./env.ts";
export { httpPost, type HttpPostOptions, type HttpResponse, HttpTimeoutError } from "./http.ts";
export { kiroCliPlan, type KiroPlanOptions } from "./kiro_cli.ts";
export { type IdePlanOptions, kiroIdePlan } from "./kiro_ide.ts";
export {
  hookCommandLine,
  SHIM_BIN_DIR,
  SHIM_ENTRIES,
  shimCommand,
  type ShimCommandOptions,
  shimEntryPath,
  shimPermissionFlags,
  type ShimPermissionOptions,
  type ShimPermissions,
  shimPermissions,
  type ShimSurface,
  WORKSPACE_CONFIG,
} from "./permissions.ts";
export {
  formatResult,
  replay,
  type ReplayLine,
  type ReplayOptions,
  type ReplayResult,
} from "./replay.ts";
export {
  executePlan,
  type HookPlan,
  type PlannedEvent,
  type PlanOutcome,
  runShim,
  type TimeoutClass,
} from "./run.ts";
export {
  agentPidFromArgs,
  agentProcess,
  kiroSessionId,
  type SessionIdOptions,
  validSessionId,
} from "./session.ts";
export {
  DROPPED_LOG,
  DROPPED_LOG_MAX_BYTES,
  spoolEvent,
  type SpoolEventOptions,
  type SpoolOutcome,
  type SpoolQuery,
  type SpoolRecord,
  type SpoolStatus,
  spoolStatus,
  type SpoolStatusOptions,
} from "./spool.ts";
export { readStdin, type ReadStdinOptions, type StdinResult } from "./stdin.ts";
export {
  detectFailure,
  firstErrorLine,
  isOwnTool,
  type ToolCall,
  toolUseBody,
} from "./tool_use.ts";
export {
  buildEvent,
  type BuildEventOptions,
  clientId,
  deliver,
  type DeliverOptions,
  type Delivery,
  type DeliveryResult,
  type EventDraft,
  loadShimConfig,
  postEvent,
  type PostOptions,
  type PostResult,
  type ShimConfig,
} from "./transport.ts";
export { serializedBytes, truncateBody, type TruncateResult } from "./truncate.ts";
