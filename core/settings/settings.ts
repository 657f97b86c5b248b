/**
 * Loading settings.json: the one settings file read by the collector, the shims, the MCP
 * server and the CLI, so they can never disagree about host, port or timeouts (kiro-learn
 * spec §13 item 16). Shims import this on every hook, so it stays light: Deno APIs only (no
 * npm or node modules).
 *
 * @module
 */

import { SettingsError, type SettingsIssue } from "./errors.ts";
import { locateJsonError } from "./_json_position.ts";
import {
  dataDir,
  type DataPaths,
  dataPaths,
  ensureDataDir,
  envGet,
  type EnvLike,
  SETTINGS_FILE,
  writeSecureFile,
} from "./paths.ts";
import { DEFAULTS, keySpec, SETTINGS_SPEC, type SettingsValues } from "./spec.ts";
import {
  article,
  isPlainObject,
  showValue as show,
  validateSettings,
  type ValidationIssue,
} from "./validate.ts";

/** Loaded, validated settings plus where they live. */
export type Settings = SettingsValues & {
  /** The data dir the settings were read from. */
  dataDir: string;
  /** Paths of every file in the data dir. */
  paths: DataPaths;
  /** Non-fatal notes, e.g. unknown keys that were ignored. */
  warnings: string[];
};

/** Options for {@linkcode loadSettings}. */
export interface LoadSettingsOptions {
  /** Environment to read (defaults to `Deno.env`). */
  env?: EnvLike;
  /** Data dir to use instead of {@linkcode dataDir}. */
  dir?: string;
}

/** Environment variables that override one settings key each. */
export const ENV_OVERRIDES: Readonly<Record<string, readonly [string, string]>> = {
  KIRO_LEARN_PORT: ["collector", "port"],
  KIRO_LEARN_HOST: ["collector", "host"],
  KIRO_LEARN_LOG_LEVEL: ["log", "level"],
};

type JsonObject = Record<string, unknown>;

/**
 * Read `<dataDir>/settings.json` (absent → defaults), apply the env overrides and validate.
 * Throws {@linkcode SettingsError} with a fix-it message on any invalid value or bad JSON.
 * Unknown keys are ignored and listed in `warnings`, so older kiro-learn files still load.
 */
export function loadSettings(options: LoadSettingsOptions = {}): Settings {
  const dir = options.dir ?? dataDir(options.env);
  const paths = dataPaths(dir);
  const warnings: string[] = [];
  const input = readSettingsFile(paths.settings, warnings);

  const fromEnv = new Map<string, string>();
  for (const [name, [section, key]] of Object.entries(ENV_OVERRIDES)) {
    const raw = envGet(options.env, name);
    if (raw === undefined || raw.trim() === "") continue;
    const current = input[section] ?? {};
    // A non-object section is reported by validation as it stands in the file.
    if (!isPlainObject(current)) continue;
    input[section] = { ...current, [key]: envValue(section, key, raw.trim()) };
    fromEnv.set(`${section}.${key}`, name);
  }

  // No port in the file or the environment: this user's own (see userDefaultPort).
  const collectorSection = input.collector ?? {};
  if (isPlainObject(collectorSection) && collectorSection.port === undefined) {
    input.collector = { ...collectorSection, port: userDefaultPort(ownerUid(dir)) };
  }

  warnings.push(...unknownKeyWarnings(input));
  const result = validateSettings(input);
  if (!result.success) throw validationError(result.issues, paths.settings, fromEnv);
  return { ...result.data, dataDir: dir, paths, warnings };
}

/**
 * Write a settings.json holding every default into `dir` unless one already exists (the
 * data dir is created 0700 first). Returns true if it wrote the file.
 */
export function writeDefaultSettings(dir: string): boolean {
  ensureDataDir(dir);
  const collector = { ...DEFAULTS.collector, port: userDefaultPort(ownerUid(dir)) };
  const text = JSON.stringify({ ...DEFAULTS, collector }, null, 2) + "\n";
  return writeSecureFile(dataPaths(dir).settings, text, { createNew: true });
}

/** Ports the per-user default spreads users over, above the base default. */
export const USER_PORT_SPAN = 4000;

/**
 * The collector's default port for the user with `uid`: `21100 + (uid mod 4000)` (the spec's
 * default plus an offset), so two users of one machine get two collectors instead of one
 * user's hooks knocking on the other's. Root and systems without uids get 21100. The range
 * (21100–25099) stays below Linux's ephemeral ports (32768+). settings.json or KIRO_LEARN_PORT
 * override it.
 */
export function userDefaultPort(uid: number | null): number {
  const base = DEFAULTS.collector.port;
  return uid === null || uid < 0 ? base : base + (uid % USER_PORT_SPAN);
}

/**
 * The uid owning `dir`, or its nearest existing ancestor (the data dir is the user's own, and
 * before it exists, their home is): read with a stat, which every kiro-learn process may do
 * without `--allow-sys`. Null where there are no uids (Windows) or nothing can be read.
 */
export function ownerUid(dir: string): number | null {
  let path = dir;
  for (;;) {
    try {
      return Deno.statSync(path).uid;
    } catch {
      const parent = path.replace(/[\\/][^\\/]*$/, "") || "/";
      if (parent === path) return null;
      path = parent;
    }
  }
}

function readSettingsFile(path: string, warnings: string[]): JsonObject {
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return {};
    throw new SettingsError(
      `${SETTINGS_FILE}: cannot read ${path} (${(e as Error).message}). ` +
        `Fix its permissions or remove it to use the defaults.`,
    );
  }
  // Editors on Windows like to prepend a byte-order mark; JSON.parse rejects it.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === "") {
    warnings.push(`${SETTINGS_FILE}: ${path} is empty; using the defaults.`);
    return {};
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    const where = locateJsonError(text);
    const at = where
      ? `${where.reason} at line ${where.line}, column ${where.column} (position ${where.offset})`
      : (e as Error).message;
    throw new SettingsError(
      `${SETTINGS_FILE}: ${path} is not valid JSON: ${at}. ` +
        `Fix the syntax or delete the file to use the defaults.`,
    );
  }
  if (!isPlainObject(parsed)) {
    throw new SettingsError(
      `${SETTINGS_FILE}: ${path} must hold a JSON object ({ ... }), found ${
        describeType(parsed)
      }. ` +
        `Fix it or delete the file to use the defaults.`,
    );
  }
  return { ...parsed };
}

/** Env values are strings; numeric keys get a number so range errors read naturally. */
function envValue(section: string, key: string, raw: string): unknown {
  const type = keySpec(section, key)?.type;
  if (type !== "integer" && type !== "number") return raw;
  return /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
}

function unknownKeyWarnings(input: JsonObject): string[] {
  const out: string[] = [];
  for (const [section, value] of Object.entries(input)) {
    const shape = Object.hasOwn(SETTINGS_SPEC, section)
      ? SETTINGS_SPEC[section as keyof SettingsValues]
      : undefined;
    if (shape === undefined) {
      out.push(`${SETTINGS_FILE}: unknown key "${section}" ignored.`);
      continue;
    }
    if (!isPlainObject(value)) continue;
    for (const key of Object.keys(value)) {
      if (!Object.hasOwn(shape, key)) {
        out.push(`${SETTINGS_FILE}: unknown key "${section}.${key}" ignored.`);
      }
    }
  }
  return out;
}

function validationError(
  found: readonly ValidationIssue[],
  file: string,
  fromEnv: Map<string, string>,
): SettingsError {
  const issues: SettingsIssue[] = [];
  const lines: string[] = [];
  for (const { path, key, section, value, verdict, allowed } of found) {
    const fallback = key === undefined
      ? undefined
      : DEFAULTS[section as keyof SettingsValues]?.[key as never];
    issues.push({ path, value, allowed });
    const problem = `${path} = ${show(value)} ${verdict} (allowed: ${allowed}).`;
    const envName = fromEnv.get(path);
    const useDefault = fallback === undefined ? "" : ` (${show(fallback)})`;
    if (envName !== undefined) {
      lines.push(
        `${envName}: ${problem} Fix the ${envName} environment variable or unset it ` +
          `to use ${SETTINGS_FILE} or the default${useDefault}.`,
      );
    } else {
      lines.push(
        `${SETTINGS_FILE}: ${problem} Fix it in ${file} or remove the key to use the ` +
          `default${useDefault}.`,
      );
    }
  }
  return new SettingsError(lines.join("\n"), issues);
}

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return article(typeof value);
}
