/**
 * Talking to the local `kiro-cli`: its version decides the hook format (3.x reads standalone
 * `.kiro/hooks/*.json` files, 2.x only hooks embedded in an agent file), and for 2.x it seeds the
 * `kiro-learn` agent from Kiro's default agent so the user keeps Kiro's own tools and prompt.
 *
 * @module
 */
import { INTERNAL_ENV_VAR } from "@kiro-learn/core/api/wire";
import { join } from "node:path";
import { isPlainObject, type JsonObject } from "./_json_file.ts";

/** The two ways of registering Kiro CLI hooks. */
export type KiroFormat = "v2" | "v3";

/** A parsed `kiro-cli --version`. */
export interface KiroCliVersion {
  /** Major version. */
  major: number;
  /** Minor version. */
  minor: number;
  /** Patch version (0 when absent). */
  patch: number;
}

/** The format to use and why, for the plan's explanation. */
export interface KiroFormatChoice {
  /** The chosen format. */
  format: KiroFormat;
  /** One line saying why. */
  reason: string;
}

/** Options for talking to `kiro-cli`. */
export interface KiroCliOptions {
  /** The program to run (default `kiro-cli`). */
  command?: string;
  /** Give up after this many milliseconds. */
  timeoutMs?: number;
}

/** Parses the output of `kiro-cli --version` ("kiro-cli 3.1.0", "kiro-cli 2.0.1-beta"). */
export function parseKiroCliVersion(output: string): KiroCliVersion | null {
  const match = /(?:^|[^\d.])(\d+)\.(\d+)(?:\.(\d+))?/.exec(output);
  if (!match) return null;
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3] ?? 0) };
}

/**
 * Runs `kiro-cli --version` and returns its output (trimmed), or null when kiro-cli is not
 * installed, fails or does not answer in time.
 */
export async function probeKiroCliVersion(options: KiroCliOptions = {}): Promise<string | null> {
  try {
    const output = await new Deno.Command(options.command ?? "kiro-cli", {
      args: ["--version"],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
      env: { [INTERNAL_ENV_VAR]: "1" },
      signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
    }).output();
    if (!output.success) return null;
    const text = new TextDecoder().decode(output.stdout).trim();
    return text === "" ? null : text;
  } catch {
    return null;
  }
}

/**
 * Picks the Kiro CLI hook format. An explicit `v2`/`v3` wins; `auto` takes 3.x or later (or an
 * unreadable version, which is newer than anything we know) as v3, earlier as v2, and v3 when
 * kiro-cli is absent, because the v3 file also serves Kiro IDE 1.x.
 */
export function chooseKiroFormat(
  requested: KiroFormat | "auto",
  version: string | null,
): KiroFormatChoice {
  if (requested !== "auto") return { format: requested, reason: `--kiro-format ${requested}` };
  if (version === null) {
    return {
      format: "v3",
      reason: "kiro-cli not found; the v3 hook file also serves Kiro IDE 1.x",
    };
  }
  const parsed = parseKiroCliVersion(version);
  if (parsed === null) {
    return { format: "v3", reason: `kiro-cli version "${version}" not understood; assuming 3.x` };
  }
  const text = `${parsed.major}.${parsed.minor}.${parsed.patch}`;
  return parsed.major >= 3
    ? { format: "v3", reason: `kiro-cli ${text} reads .kiro/hooks files` }
    : { format: "v2", reason: `kiro-cli ${text} needs hooks embedded in an agent` };
}

/** What seeding the chat agent produced. */
export interface SeedResult {
  /** The agent kiro-cli created, or null when it could not. */
  agent: JsonObject | null;
  /** Why seeding failed, when it did. */
  warning?: string;
}

/**
 * Asks kiro-cli to create a `kiro-learn` agent from its `kiro_default` agent, in a scratch dir
 * (never over the user's files), and returns the parsed result. `EDITOR=true` makes the editor
 * step a no-op; the argv goes to the program directly, never through a shell.
 */
export async function seedKiroAgent(options: KiroCliOptions = {}): Promise<SeedResult> {
  const scratch = await Deno.makeTempDir({ prefix: "kiro-learn-seed-" });
  try {
    const output = await new Deno.Command(options.command ?? "kiro-cli", {
      args: ["agent", "create", "--from", "kiro_default", "--directory", scratch, "kiro-learn"],
      cwd: scratch,
      env: { EDITOR: "true", VISUAL: "true", [INTERNAL_ENV_VAR]: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(options.timeoutMs ?? 20_000),
    }).output();
    if (!output.success) {
      const detail = new TextDecoder().decode(output.stderr).trim().split("\n").at(-1) ?? "";
      return { agent: null, warning: `kiro-cli agent create failed (${detail || output.code})` };
    }
    const file = findFile(scratch, "kiro-learn.json", 4);
    if (file === null) {
      return { agent: null, warning: "kiro-cli agent create wrote no kiro-learn.json" };
    }
    const parsed: unknown = JSON.parse(await Deno.readTextFile(file));
    if (!isPlainObject(parsed) || Object.keys(parsed).length === 0) {
      return { agent: null, warning: "kiro-cli agent create wrote an empty or non-object agent" };
    }
    return { agent: parsed };
  } catch (error) {
    return { agent: null, warning: `cannot seed from kiro_default (${(error as Error).message})` };
  } finally {
    await Deno.remove(scratch, { recursive: true }).catch(() => {});
  }
}

function findFile(dir: string, name: string, depth: number): string | null {
  for (const entry of Deno.readDirSync(dir)) {
    const path = join(dir, entry.name);
    if (entry.isFile && entry.name === name) return path;
    if (entry.isDirectory && depth > 0) {
      const found = findFile(path, name, depth - 1);
      if (found) return found;
    }
  }
  return null;
}
