import assert from "node:assert/strict";
import fc from "fast-check";
import {
  allowedText,
  checkValue,
  DEFAULTS,
  type EmbeddingBackend,
  type ExtractionStrategy,
  type KeySpec,
  type LogLevel,
  SETTINGS_SPEC,
  type SettingsInput,
  type SettingsValues,
  validateSettings,
} from "./mod.ts";

// --- type-level checks: the types are derived from the spec, and these pin what they are ---

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true
  : false;
function typeIs<T extends true>(_proof?: T): void {}

typeIs<Equals<LogLevel, "debug" | "info" | "warn" | "error">>();
typeIs<Equals<ExtractionStrategy, "auto" | "acp" | "heuristic">>();
typeIs<Equals<EmbeddingBackend, "use-lite" | "onnx" | "off">>();
typeIs<Equals<SettingsValues["collector"], { host: string; port: number }>>();
typeIs<Equals<SettingsValues["extraction"]["agentCommand"], string[]>>();
typeIs<Equals<SettingsValues["compaction"]["enabled"], boolean>>();
typeIs<Equals<SettingsValues["reconciliation"]["clusterThreshold"], number>>();
typeIs<
  Equals<
    keyof SettingsValues,
    | "collector"
    | "shim"
    | "retrieval"
    | "extraction"
    | "compaction"
    | "reconciliation"
    | "embedding"
    | "spool"
    | "team"
    | "log"
  >
>();
typeIs<Equals<SettingsValues["team"], { url: string; pollMs: number }>>();
typeIs<Equals<NonNullable<SettingsInput["log"]>, { level?: LogLevel }>>();

function specs(): Array<[string, KeySpec]> {
  return Object.entries(SETTINGS_SPEC).flatMap(([section, keys]) =>
    Object.entries(keys as Record<string, KeySpec>).map(([key, spec]) =>
      [`${section}.${key}`, spec] as [string, KeySpec]
    )
  );
}

Deno.test("every key has a description, and its default is valid for its own spec", () => {
  for (const [path, spec] of specs()) {
    assert.ok(spec.description.length > 10, path);
    assert.equal(checkValue(spec, spec.default), null, path);
    if (spec.type === "integer" || spec.type === "number") assert.ok(spec.min <= spec.max, path);
    const [section, key] = path.split(".");
    assert.deepEqual(DEFAULTS[section as keyof SettingsValues][key as never], spec.default, path);
  }
  assert.ok(Object.isFrozen(SETTINGS_SPEC.collector.port));
});

Deno.test("allowed texts are derived from the spec", () => {
  assert.equal(allowedText(SETTINGS_SPEC.collector.port), "integer 1–65535");
  assert.equal(allowedText(SETTINGS_SPEC.reconciliation.clusterThreshold), "number 0–1");
  assert.equal(allowedText(SETTINGS_SPEC.log.level), 'one of "debug", "info", "warn", "error"');
  assert.equal(allowedText(SETTINGS_SPEC.compaction.enabled), "true or false");
});

Deno.test("validateSettings: defaults for absent keys, every issue in spec order", () => {
  const ok = validateSettings({ collector: { port: 3000 } });
  assert.ok(ok.success);
  assert.equal(ok.data.collector.port, 3000);
  assert.equal(ok.data.collector.host, "127.0.0.1");
  const bad = validateSettings({
    log: { level: "loud" },
    collector: { port: 1.5, host: "example.com" },
    spool: [],
  });
  assert.ok(!bad.success);
  assert.deepEqual(bad.issues.map((i) => [i.path, i.verdict]), [
    ["collector.host", "is not a loopback host"],
    ["collector.port", "is not an integer"],
    ["spool", "is not an object"],
    ["log.level", "is not an allowed value"],
  ]);
  assert.ok(!validateSettings([]).success);
});

Deno.test("checkValue verdicts per type", () => {
  const { port } = SETTINGS_SPEC.collector;
  assert.equal(checkValue(port, "80"), "is not a number");
  assert.equal(checkValue(port, Infinity), "is not a number");
  assert.equal(checkValue(port, 0.5), "is not an integer");
  assert.equal(checkValue(port, 2 ** 60), "is out of range");
  const cmd = SETTINGS_SPEC.extraction.agentCommand;
  assert.equal(checkValue(cmd, "kiro-cli"), "is not an array");
  assert.equal(checkValue(cmd, []), "is invalid");
  assert.equal(checkValue(cmd, ["a", ""]), "is invalid");
  assert.equal(checkValue(cmd, ["a", 5]), "is not a string");
  assert.equal(checkValue(SETTINGS_SPEC.collector.host, 127), "is not a string");
  assert.equal(checkValue(SETTINGS_SPEC.log.level, 5), "is not an allowed value");
});

Deno.test("property: integers in range are accepted, out of range refused, per key", () => {
  for (const [path, spec] of specs()) {
    if (spec.type !== "integer") continue;
    fc.assert(
      fc.property(fc.integer({ min: spec.min, max: spec.max }), (n) => {
        assert.equal(checkValue(spec, n), null, path);
      }),
      { numRuns: 30 },
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: Number.MIN_SAFE_INTEGER, max: spec.min - 1 }),
          fc.integer({ min: spec.max + 1, max: Number.MAX_SAFE_INTEGER }),
        ),
        (n) => assert.equal(checkValue(spec, n), "is out of range", path),
      ),
      { numRuns: 30 },
    );
  }
});

Deno.test("docs/configuration.md's settings table agrees with the spec (keys, order, defaults, ranges)", () => {
  const readme = Deno.readTextFileSync(new URL("../../docs/configuration.md", import.meta.url));
  const rows = [...readme.matchAll(/^\| `([a-zA-Z]+\.[a-zA-Z]+)` +\| `([^`]*)` +\| ([^|]*)\|$/gm)];
  assert.deepEqual(rows.map((r) => r[1]), specs().map(([path]) => path));
  for (const [, path, shown, allowed] of rows) {
    const spec = specs().find(([p]) => p === path)![1];
    const expected = typeof spec.default === "string" ? spec.default : JSON.stringify(spec.default);
    assert.equal(shown, expected, path);
    if (spec.type === "integer" || spec.type === "number") {
      assert.ok(allowed.trim().startsWith(`${spec.min}–${spec.max}`), `${path}: ${allowed}`);
    }
    if (spec.type === "enum") {
      for (const value of spec.values) assert.ok(allowed.includes(`\`${value}\``), path);
    }
  }
});

Deno.test("team.url: a postgres URL naming user, host and database, never a password", () => {
  const url = (value: unknown) => checkValue(SETTINGS_SPEC.team.url, value);
  assert.equal(url(""), null);
  assert.equal(url("postgres://alice@db.internal:5432/team"), null);
  assert.equal(url("postgresql://alice@db.internal/team"), null);
  assert.match(url("postgres://alice:hunter2@db/team") ?? "", /password/);
  assert.match(url("mysql://alice@db/team") ?? "", /postgres/);
  assert.match(url("postgres://db/team") ?? "", /no user/);
  assert.match(url("postgres://alice@db") ?? "", /no database/);
  assert.match(url("not a url") ?? "", /not a URL/);
});
