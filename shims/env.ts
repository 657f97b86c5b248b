/**
 * The environment a shim reads: exactly {@linkcode SHIM_ENV_VARS} (defined in core's launch
 * module, which builds the `--allow-env` list from it), so reading anything else fails
 * closed (and is treated as unset).
 *
 * @module
 */
import { INTERNAL_ENV_VAR } from "@kiro-learn/core/api/wire";
import { SHIM_ENV_VARS } from "@kiro-learn/core/launch";

/** Environment lookup; values may be missing. */
export type ShimEnv = Record<string, string | undefined>;

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
  const value = env[INTERNAL_ENV_VAR];
  return value !== undefined && value !== "" && value !== "0";
}
