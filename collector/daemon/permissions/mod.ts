/**
 * The daemon's launch contract: the Deno permissions it holds, the argument list that runs it
 * with exactly those, and where the embedding backends' files live (so only those are granted).
 *
 * @module
 */
export {
  agentRunPaths,
  COLLECTOR_ASSET_DIRS,
  COLLECTOR_ENV_VARS,
  type CollectorPermissions,
  collectorPermissions,
  commandAvailable,
  DAEMON_ENTRY,
  DAEMON_GLIBC_TUNABLES,
  DAEMON_V8_FLAGS,
  daemonArgs,
  daemonEnv,
  embeddingPermissions,
  permissionFiles,
  permissionFlags,
  resolveCommand,
  TEAM_CLIENT_ENV,
} from "./permissions.ts";
export {
  ONNX_CHILD,
  onnxRuntimeBinDir,
  TEAM_SYNC_WORKER,
  teamWorkerCodePaths,
  TERM_SPACE_WORKER,
  termSpaceWorkerCodePaths,
  USE_LITE_KERNELS,
  USE_LITE_MODEL_VERSION,
  USE_LITE_WORKER,
  useLiteReadPaths,
  WORKSPACE_CONFIG,
} from "./model_paths.ts";
export {
  computeOnlyPermissions,
  type DaemonWorkerOptions,
  daemonWorkerOptions,
} from "./worker_options.ts";
