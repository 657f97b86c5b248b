/**
 * The environment variables a shim reads, and no others: the `--allow-env` list is built from
 * this, so reading anything else fails closed (and is treated as unset).
 *
 * @module
 */
import { ENV_OVERRIDES } from "@kiro-learn/core/settings";

/** Environment lookup; values may be missing. */
export type ShimEnv = Record<string, string | undefined>;

/** Every variable a shim may read, and why. */
export const SHIM_ENV_VARS: readonly string[] = Object.freeze([
  // The data dir (settings, token, spool) and project detection's home directory.
  "KIRO_LEARN_HOME",
  "HOME",
  "USERPROFILE",
  // settings.json overrides (host, port, log level).
  ...Object.keys(ENV_OVERRIDES),
  // The actor segment of the namespace.
  "USER",
  "USERNAME",
  "LOGNAME",
  // Set on the memory system's own agent children: the shim must not observe them.
  "KIRO_LEARN_INTERNAL",
  // Session id set by newer Kiro builds.
  "KIRO_SESSION_ID",
  // Kiro IDE 0.x payload (and the first prompt on Kiro CLI agentSpawn).
  "USER_PROMPT",
]);

/** Reads {@linkcode SHIM_ENV_VARS} once; anything not permitted reads as unset. */
export function readShimEnv(): ShimEnv {
  const env: ShimEnv = {};
  for (const key of SHIM_ENV_VARS) {
    try {
      env[key] = Deno.env.get(key);
    } catch {
      env[key] = undefined;
    }
  }
  return env;
}

/** True when the memory system's own agents run this hook: the shim must do nothing. */
export function isInternal(env: ShimEnv): boolean {
  const value = env.KIRO_LEARN_INTERNAL;
  return value !== undefined && value !== "" && value !== "0";
}
