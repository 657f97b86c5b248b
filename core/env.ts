/**
 * Reading environment variables the same way in every process: from an explicit map (tests,
 * child launches) or from `Deno.env`, and never crashing where env permission is narrow.
 *
 * @module
 */

/** An environment: variable name to value. */
export type EnvLike = Record<string, string | undefined>;

/**
 * Reads `key` from `env`, or without it from `Deno.env`. A variable the process may not read
 * counts as unset, so a narrowly permitted hook falls back to defaults instead of crashing.
 */
export function envGet(env: EnvLike | undefined, key: string): string | undefined {
  if (env !== undefined) return env[key];
  try {
    return Deno.env.get(key);
  } catch {
    return undefined;
  }
}
