/**
 * Loading settings.json: the one settings file read by the collector, the shims, the MCP
 * server and the CLI, so they can never disagree about host, port or timeouts (kiro-learn
 * spec §13 item 16). Shims import this on every hook, so it stays light: zod and Deno only.
 *
 * @module
 */

import type { z } from "zod";
import { SettingsError, type SettingsIssue } from "./errors.ts";
import { locateJsonError } from "./json_position.ts";
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
import { DEFAULTS, SETTINGS_SHAPE, SettingsSchema, type SettingsValues } from "./schema.ts";

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

  warnings.push(...unknownKeyWarnings(input));
  const result = SettingsSchema.safeParse(input);
  if (!result.success) {
    throw validationError(result.error.issues, input, paths.settings, fromEnv);
  }
  return { ...result.data, dataDir: dir, paths, warnings };
}

/**
 * Write a settings.json holding every default into `dir` unless one already exists (the
 * data dir is created 0700 first). Returns true if it wrote the file.
 */
export function writeDefaultSettings(dir: string): boolean {
  ensureDataDir(dir);
  const text = JSON.stringify(DEFAULTS, null, 2) + "\n";
  return writeSecureFile(dataPaths(dir).settings, text, { createNew: true });
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
  if (typeof DEFAULTS[section as keyof SettingsValues]?.[key as never] !== "number") return raw;
  return /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
}

function unknownKeyWarnings(input: JsonObject): string[] {
  const out: string[] = [];
  for (const [section, value] of Object.entries(input)) {
    const shape = SETTINGS_SHAPE[section];
    if (shape === undefined) {
      out.push(`${SETTINGS_FILE}: unknown key "${section}" ignored.`);
      continue;
    }
    if (!isPlainObject(value)) continue;
    for (const key of Object.keys(value)) {
      if (!(key in shape)) out.push(`${SETTINGS_FILE}: unknown key "${section}.${key}" ignored.`);
    }
  }
  return out;
}

function validationError(
  zodIssues: readonly z.core.$ZodIssue[],
  input: JsonObject,
  file: string,
  fromEnv: Map<string, string>,
): SettingsError {
  const issues: SettingsIssue[] = [];
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const issue of zodIssues) {
    // Array element errors are reported once, against the whole array value.
    const [section, key] = issue.path.map(String);
    const path = key === undefined ? section : `${section}.${key}`;
    if (seen.has(path)) continue;
    seen.add(path);

    const sectionValue = input[section];
    const value = key === undefined
      ? sectionValue
      : isPlainObject(sectionValue)
      ? sectionValue[key]
      : undefined;
    const leaf = key === undefined ? undefined : SETTINGS_SHAPE[section]?.[key];
    const allowed = leaf?.description ??
      `an object with the keys ${Object.keys(SETTINGS_SHAPE[section] ?? {}).join(", ")}`;
    const fallback = key === undefined
      ? undefined
      : DEFAULTS[section as keyof SettingsValues]?.[key as never];

    issues.push({ path, value, allowed });
    const problem = `${path} = ${show(value)} ${verdict(issue)} (allowed: ${allowed}).`;
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

function verdict(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "too_big":
    case "too_small":
      return issue.origin === "number" ? "is out of range" : "is invalid";
    case "invalid_type":
      return issue.expected === "int" ? "is not an integer" : `is not ${article(issue.expected)}`;
    case "invalid_value":
      return "is not an allowed value";
    case "custom":
      return issue.message;
    default:
      return "is invalid";
  }
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function show(value: unknown): string {
  if (value === undefined) return "(missing)";
  try {
    const text = JSON.stringify(value);
    return text.length > 120 ? text.slice(0, 117) + "..." : text;
  } catch {
    return String(value);
  }
}

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return article(typeof value);
}

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
