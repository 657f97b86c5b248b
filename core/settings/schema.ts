/**
 * The settings.json schema: every key, its default and its allowed range live here and
 * nowhere else. Each leaf carries a human "allowed" text (via `.describe`) so validation
 * errors can tell the user exactly what would have been accepted.
 *
 * @module
 */

import { z } from "zod";

/** True for hosts that only accept local connections: 127.x.x.x, ::1 or localhost. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  if (h === "localhost" || h === "::1") return true;
  const m = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  return m !== null && m.slice(1).every((part) => Number(part) <= 255);
}

function int(min: number, max: number, fallback: number) {
  return z.number().int().min(min).max(max).default(fallback).describe(
    `integer ${fmt(min)}–${fmt(max)}`,
  );
}

function ratio(fallback: number) {
  return z.number().min(0).max(1).default(fallback).describe("number 0–1");
}

function bool(fallback: boolean) {
  return z.boolean().default(fallback).describe("true or false");
}

function oneOf<const T extends readonly [string, ...string[]]>(values: T, fallback: T[number]) {
  return z.enum(values).default(fallback as never).describe(
    `one of ${values.map((v) => JSON.stringify(v)).join(", ")}`,
  );
}

function command(fallback: readonly string[]) {
  // A factory default so no two loaded Settings share (and could mutate) one array.
  return z.array(z.string().min(1)).min(1).default(() => [...fallback]).describe(
    "a non-empty array of non-empty strings (the command and its arguments)",
  );
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toString();
}

const collectorShape = {
  host: z.string().refine(isLoopbackHost, { message: "is not a loopback host" }).default(
    "127.0.0.1",
  ).describe(
    "a loopback host: 127.x.x.x, ::1 or localhost",
  ),
  port: int(1, 65535, 21100),
};

const shimShape = {
  timeoutMs: int(50, 30_000, 2000),
  maxBodyBytes: int(4096, 8_388_608, 524_288),
};

const retrievalShape = {
  budgetMs: int(10, 5000, 500),
  limit: int(1, 50, 10),
  tokenBudget: int(100, 20_000, 2000),
};

const extractionShape = {
  strategy: oneOf(["auto", "acp", "heuristic"], "auto"),
  agentCommand: command(["kiro-cli", "acp", "--agent", "kiro-learn-compressor"]),
  idleMs: int(5000, 300_000, 30_000),
  sizeThresholdBytes: int(1024, 16_777_216, 262_144),
  promptCapBytes: int(4096, 1_048_576, 65_536),
  timeoutMs: int(5000, 600_000, 60_000),
  maxAttempts: int(1, 10, 3),
  concurrency: int(1, 8, 2),
  breakerThreshold: int(1, 100, 3),
  breakerCooldownMs: int(1000, 86_400_000, 300_000),
  dailyBudgetChars: int(0, 1_000_000_000, 2_000_000),
};

const compactionShape = {
  enabled: bool(true),
  thresholdBytes: int(65_536, 67_108_864, 1_048_576),
  timeoutMs: int(5000, 600_000, 120_000),
  maxAttempts: int(1, 10, 2),
  agentCommand: command(["kiro-cli", "acp", "--agent", "kiro-learn-compactor"]),
};

const reconciliationShape = {
  enabled: bool(true),
  agentCommand: command(["kiro-cli", "acp", "--agent", "kiro-learn-reconciler"]),
  judgeTimeoutMs: int(5000, 300_000, 30_000),
  clusterThreshold: ratio(0.85),
  neighborThreshold: ratio(0.8),
  neighborPoolMax: int(1, 100, 10),
};

const embeddingShape = {
  backend: oneOf(["use-lite", "onnx", "off"], "use-lite"),
  timeoutMs: int(100, 60_000, 2000),
};

const spoolShape = {
  maxBytes: int(1_048_576, 1_073_741_824, 67_108_864),
};

const logShape = {
  level: oneOf(["debug", "info", "warn", "error"], "info"),
};

/** Leaf schemas by section and key; used to explain errors and spot unknown keys. */
export const SETTINGS_SHAPE: Readonly<Record<string, Readonly<Record<string, z.ZodType>>>> = {
  collector: collectorShape,
  shim: shimShape,
  retrieval: retrievalShape,
  extraction: extractionShape,
  compaction: compactionShape,
  reconciliation: reconciliationShape,
  embedding: embeddingShape,
  spool: spoolShape,
  log: logShape,
};

/** The full settings.json schema; every key is optional in the file and defaulted. */
export const SettingsSchema = z.object({
  collector: z.object(collectorShape).prefault({}),
  shim: z.object(shimShape).prefault({}),
  retrieval: z.object(retrievalShape).prefault({}),
  extraction: z.object(extractionShape).prefault({}),
  compaction: z.object(compactionShape).prefault({}),
  reconciliation: z.object(reconciliationShape).prefault({}),
  embedding: z.object(embeddingShape).prefault({}),
  spool: z.object(spoolShape).prefault({}),
  log: z.object(logShape).prefault({}),
});

/** Validated settings values (the contents of settings.json with defaults applied). */
export type SettingsValues = z.infer<typeof SettingsSchema>;

/** The settings.json input shape (every key optional). */
export type SettingsInput = z.input<typeof SettingsSchema>;

/** Log levels accepted by `log.level`. */
export type LogLevel = SettingsValues["log"]["level"];

/** Extraction strategies accepted by `extraction.strategy`. */
export type ExtractionStrategy = SettingsValues["extraction"]["strategy"];

/** Embedding backends accepted by `embedding.backend`. */
export type EmbeddingBackend = SettingsValues["embedding"]["backend"];

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Every default, derived from the schema (frozen; never mutate). */
export const DEFAULTS: Readonly<SettingsValues> = deepFreeze(SettingsSchema.parse({}));
