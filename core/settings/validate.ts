/**
 * Validating settings.json against {@linkcode SETTINGS_SPEC}: a small hand-written checker
 * (no zod, see `spec.ts`). Sections and keys are checked in spec order; absent keys take
 * their default, unknown keys are dropped (the loader warns about them), and every invalid
 * key yields one issue saying what is wrong and what would have been accepted.
 *
 * @module
 */
import { SettingsError } from "./errors.ts";
import {
  allowedText,
  defaultValues,
  isLoopbackHost,
  type KeySpec,
  postgresUrlProblem,
  SETTINGS_SPEC,
  type SettingsSpecShape,
  type SettingsValues,
} from "./spec.ts";

/** One invalid value found by {@linkcode validateSettings}. */
export interface ValidationIssue {
  /** Dotted path: `collector.port`, or just the section (`log`) when it is not an object. */
  path: string;
  /** The section. */
  section: string;
  /** The key, when the issue is about one key. */
  key?: string;
  /** The value as found. */
  value: unknown;
  /** What is wrong, e.g. `is out of range`, `is not a number`. */
  verdict: string;
  /** What is allowed, e.g. `integer 1–65535`. */
  allowed: string;
}

/** The outcome of {@linkcode validateSettings}. */
export type ValidationResult =
  | { success: true; data: SettingsValues }
  | { success: false; issues: ValidationIssue[] };

const SPEC: SettingsSpecShape = SETTINGS_SPEC;

/** Checks a parsed settings.json object; returns the values with defaults or every issue. */
export function validateSettings(input: unknown): ValidationResult {
  const data = defaultValues() as unknown as Record<string, Record<string, unknown>>;
  const issues: ValidationIssue[] = [];
  if (!isPlainObject(input)) {
    issues.push({
      path: "(settings)",
      section: "",
      value: input,
      verdict: `is not ${article("object")}`,
      allowed: `an object with the keys ${Object.keys(SPEC).join(", ")}`,
    });
    return { success: false, issues };
  }
  for (const [section, keys] of Object.entries(SPEC)) {
    const sectionValue = Object.hasOwn(input, section) ? input[section] : undefined;
    if (sectionValue === undefined) continue;
    if (!isPlainObject(sectionValue)) {
      issues.push({
        path: section,
        section,
        value: sectionValue,
        verdict: `is not ${article("object")}`,
        allowed: sectionAllowedText(section),
      });
      continue;
    }
    for (const [key, spec] of Object.entries(keys)) {
      const value = Object.hasOwn(sectionValue, key) ? sectionValue[key] : undefined;
      if (value === undefined) continue;
      const verdict = checkValue(spec, value);
      if (verdict === null) {
        data[section][key] = Array.isArray(value) ? [...value] : value;
      } else {
        issues.push({
          path: `${section}.${key}`,
          section,
          key,
          value,
          verdict,
          allowed: allowedText(spec),
        });
      }
    }
  }
  if (issues.length > 0) return { success: false, issues };
  return { success: true, data: data as unknown as SettingsValues };
}

/** What a section accepts, as error messages print it. */
export function sectionAllowedText(section: string): string {
  return `an object with the keys ${Object.keys(SPEC[section] ?? {}).join(", ")}`;
}

/** Null when `value` is valid for `spec`, else what is wrong with it. */
export function checkValue(spec: KeySpec, value: unknown): string | null {
  switch (spec.type) {
    case "integer":
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) return "is not a number";
      if (spec.type === "integer" && !Number.isInteger(value)) return "is not an integer";
      return value < spec.min || value > spec.max ? "is out of range" : null;
    case "boolean":
      return typeof value === "boolean" ? null : "is not a boolean";
    case "enum":
      return typeof value === "string" && (spec.values as readonly string[]).includes(value)
        ? null
        : "is not an allowed value";
    case "command": {
      if (!Array.isArray(value)) return "is not an array";
      for (const item of value) {
        if (typeof item !== "string") return "is not a string";
        if (item === "") return "is invalid";
      }
      return value.length === 0 ? "is invalid" : null;
    }
    case "names": {
      if (!Array.isArray(value)) return "is not an array";
      for (const item of value) {
        if (typeof item !== "string") return "is not a string";
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(item)) return "is invalid";
      }
      return null;
    }
    case "loopback-host":
      if (typeof value !== "string") return "is not a string";
      return isLoopbackHost(value) ? null : "is not a loopback host";
    case "postgres-url":
      if (typeof value !== "string") return "is not a string";
      return postgresUrlProblem(value);
  }
}

/**
 * The settings schema as an object with zod-like `parse` / `safeParse`, for callers that
 * validate a settings object they hold (not a file): `parse` throws a {@linkcode SettingsError}
 * listing every issue.
 */
export const SettingsSchema: {
  parse(input: unknown): SettingsValues;
  safeParse(input: unknown): ValidationResult;
} = Object.freeze({
  parse(input: unknown): SettingsValues {
    const result = validateSettings(input);
    if (result.success) return result.data;
    throw new SettingsError(
      result.issues.map((i) =>
        `${i.path} = ${showValue(i.value)} ${i.verdict} (allowed: ${i.allowed}).`
      )
        .join("\n"),
      result.issues.map(({ path, value, allowed }) => ({ path, value, allowed })),
    );
  },
  safeParse: validateSettings,
});

/** A value as error messages print it: JSON, cut at 120 characters. */
export function showValue(value: unknown): string {
  if (value === undefined) return "(missing)";
  try {
    const text = JSON.stringify(value);
    return text.length > 120 ? text.slice(0, 117) + "..." : text;
  } catch {
    return String(value);
  }
}

/** `a boolean`, `an object`. */
export function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** A non-null, non-array object. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
