/**
 * The ACP client: one fresh agent process per model call (compressor, judge, compactor).
 *
 * @module
 */
export {
  AcpError,
  type AcpExitDetails,
  AcpExitError,
  type AcpOptions,
  AcpProtocolError,
  type AcpResult,
  AcpTimeoutError,
  DEFAULT_KILL_GRACE_MS,
  KILL_COMMAND,
  pickEnv,
  runAcpPrompt,
} from "./acp_client.ts";
export * from "./budget.ts";
export {
  failedSpend,
  promptBytes,
  type PromptReply,
  type PromptRunner,
  type SpendCarrier,
  type WireSpend,
  wireSpend,
} from "./prompt_runner.ts";
export * from "./semaphore.ts";
export { type AgentWorkdir, AgentWorkdirError, prepareAgentWorkdir } from "./agent_workdir.ts";
