/**
 * Realistic, deterministic text for benchmarks: what a coding agent's events and memory records
 * look like (prompts, tool calls with file paths and command output, turn summaries, records
 * with titles, summaries, facts, concepts and files), generated from a seeded PRNG so every run
 * measures the same corpus.
 *
 * Words are drawn with a skew (early vocabulary entries are common, late ones rare) and
 * identifiers are composed from parts, so the index sees a long tail of rare terms as it does on
 * a real project, not a handful of words repeated everywhere.
 *
 * @module
 */
import type { Event, EventBody, MemoryRecord } from "../schemas/mod.ts";

// ---- seeded PRNG ------------------------------------------------------------------------------

/** A seeded pseudo-random source (sfc32 seeded through splitmix32). Never `Math.random`. */
export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  /** One item, uniformly. Throws on an empty list. */
  pick<T>(items: readonly T[]): T;
  /** One item, early items more likely (roughly Zipf-like), for word frequencies. */
  pickSkewed<T>(items: readonly T[]): T;
  /** True with probability `p`. */
  chance(p: number): boolean;
  /** `count` distinct items (fewer if the list is shorter), in draw order. */
  sample<T>(items: readonly T[], count: number): T[];
}

/** Creates a PRNG from a 32-bit integer seed; equal seeds give equal sequences. */
export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  function splitmix32(): number {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  }
  let a = splitmix32();
  let b = splitmix32();
  let c = splitmix32();
  let d = splitmix32();
  function sfc32(): number {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t;
  }
  for (let i = 0; i < 12; i++) sfc32();
  const rng: Rng = {
    next(): number {
      return sfc32() / 4294967296;
    },
    int(min: number, max: number): number {
      return min + Math.floor(rng.next() * (max - min + 1));
    },
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new RangeError("pick from an empty list");
      return items[Math.floor(rng.next() * items.length)];
    },
    pickSkewed<T>(items: readonly T[]): T {
      if (items.length === 0) throw new RangeError("pick from an empty list");
      return items[Math.floor(rng.next() ** 1.7 * items.length)];
    },
    chance(p: number): boolean {
      return rng.next() < p;
    },
    sample<T>(items: readonly T[], count: number): T[] {
      const pool = [...items];
      const out: T[] = [];
      while (out.length < count && pool.length > 0) {
        out.push(pool.splice(Math.floor(rng.next() * pool.length), 1)[0]);
      }
      return out;
    },
  };
  return rng;
}

/** A 32-bit FNV-1a hash of a string, to derive seeds and ids from labels. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

// ---- vocabulary -------------------------------------------------------------------------------

/** Words of coding sessions, most common first within each list. */
export const VOCABULARY = {
  /** Areas of a code base. */
  modules: [
    "queue",
    "migration",
    "websocket",
    "auth",
    "session",
    "search",
    "cache",
    "collector",
    "storage",
    "api",
    "config",
    "users",
    "billing",
    "scheduler",
    "router",
    "parser",
    "embedding",
    "retrieval",
    "extraction",
    "worker",
    "viewer",
    "shim",
    "upload",
    "checkout",
    "notification",
    "webhook",
    "importer",
    "exporter",
    "compactor",
    "indexer",
    "logger",
    "metrics",
    "payments",
    "invoice",
    "tenant",
    "permissions",
    "onboarding",
    "dashboard",
    "settings",
    "plugin",
    "sync",
    "backup",
    "telemetry",
    "ratelimit",
    "gateway",
    "cli",
    "installer",
    "daemon",
    "watcher",
    "renderer",
    "feature-flags",
    "audit",
    "export",
    "reports",
    "search-index",
    "mailer",
    "sso",
    "graphql",
    "ledger",
    "inventory",
    "pricing",
    "feed",
    "comments",
    "media",
    "thumbnails",
    "geocoder",
    "i18n",
    "ws-proxy",
    "oauth",
    "tokenizer",
  ],
  /** Parts of a module. */
  components: [
    "snapshot",
    "handler",
    "client",
    "table",
    "test",
    "schema",
    "store",
    "reconnect",
    "middleware",
    "service",
    "worker",
    "pool",
    "index",
    "loop",
    "route",
    "controller",
    "adapter",
    "serializer",
    "watermark",
    "fixture",
    "trigger",
    "hook",
    "cursor",
    "batch",
    "manifest",
    "lockfile",
    "endpoint",
    "cache",
    "backoff",
    "timer",
    "state machine",
    "reducer",
    "resolver",
    "validator",
    "pipeline",
    "checkpoint",
    "queue",
    "retry policy",
    "dispatcher",
    "migration",
    "view",
    "form",
    "modal",
    "query builder",
    "connection",
    "session",
    "token",
  ],
  /** Kinds of trouble. */
  bugs: [
    "race",
    "flaky test",
    "timeout",
    "deadlock",
    "off-by-one error",
    "memory leak",
    "null dereference",
    "stale read",
    "unhandled rejection",
    "lock contention",
    "regression",
    "crash",
    "slow query",
    "N+1 query",
    "infinite loop",
    "encoding bug",
    "timezone bug",
    "double submit",
    "dangling promise",
    "missing index",
    "integer overflow",
    "path traversal",
    "escaping bug",
    "busy wait",
    "resource leak",
    "duplicate insert",
    "partial write",
    "torn read",
  ],
  /** Verbs in the past tense, for titles. */
  pastVerbs: [
    "Fixed",
    "Added",
    "Refactored",
    "Removed",
    "Investigated",
    "Renamed",
    "Documented",
    "Reverted",
    "Optimised",
    "Hardened",
    "Simplified",
    "Migrated",
    "Split",
    "Extracted",
    "Replaced",
    "Debugged",
    "Batched",
    "Deduplicated",
    "Validated",
    "Cached",
  ],
  /** Imperative verbs, for prompts. */
  imperatives: [
    "fix",
    "add",
    "refactor",
    "explain",
    "debug",
    "remove",
    "rename",
    "speed up",
    "write tests for",
    "document",
    "migrate",
    "split",
    "review",
    "clean up",
    "investigate",
    "simplify",
    "profile",
    "harden",
  ],
  /** Libraries and tools. */
  libraries: [
    "sqlite",
    "deno",
    "typescript",
    "postgres",
    "react",
    "node",
    "hono",
    "zod",
    "docker",
    "git",
    "redis",
    "fts5",
    "vite",
    "playwright",
    "github actions",
    "kubernetes",
    "nginx",
    "prisma",
    "drizzle",
    "vitest",
    "jest",
    "eslint",
    "esbuild",
    "grpc",
    "protobuf",
    "graphql",
    "openapi",
    "terraform",
    "kafka",
    "s3",
    "rust",
    "tokio",
    "serde",
    "go",
    "python",
    "pytest",
    "fastapi",
    "django",
  ],
  /** Topics a record is about. */
  concepts: [
    "concurrency",
    "testing",
    "error-handling",
    "transactions",
    "performance",
    "caching",
    "retries",
    "idempotency",
    "durability",
    "schema-migration",
    "configuration",
    "logging",
    "security",
    "authentication",
    "authorization",
    "serialization",
    "indexing",
    "full-text-search",
    "embeddings",
    "ranking",
    "backpressure",
    "observability",
    "packaging",
    "ci",
    "deployment",
    "pagination",
    "rate-limiting",
    "validation",
    "streaming",
    "timezones",
    "encoding",
    "privacy",
    "redaction",
    "memory-management",
    "accessibility",
    "i18n",
  ],
  /** Top-level directories. */
  dirs: [
    "src",
    "core",
    "collector",
    "lib",
    "server",
    "app",
    "tests",
    "internal",
    "pkg",
    "web",
    "api",
    "scripts",
    "migrations",
    "shims",
    "cmd",
    "packages/ui",
    "crates/engine",
  ],
  /** File extensions. */
  extensions: [
    "ts",
    "ts",
    "ts",
    "tsx",
    "js",
    "sql",
    "json",
    "rs",
    "go",
    "py",
    "md",
    "toml",
    "yaml",
  ],
  /** Identifier prefixes. */
  identVerbs: [
    "get",
    "load",
    "parse",
    "build",
    "handle",
    "open",
    "flush",
    "snapshot",
    "enqueue",
    "compact",
    "retry",
    "resolve",
    "validate",
    "render",
    "fetch",
    "sync",
    "merge",
    "apply",
    "commit",
    "encode",
    "decode",
    "normalize",
    "scrub",
    "redact",
    "ingest",
    "drain",
    "schedule",
    "acquire",
    "release",
    "emit",
    "select",
    "rank",
    "tokenize",
    "embed",
    "format",
    "migrate",
    "close",
    "watch",
    "spawn",
    "connect",
  ],
  /** Identifier nouns. */
  identNouns: [
    "Queue",
    "Event",
    "Record",
    "Config",
    "Session",
    "Snapshot",
    "User",
    "Token",
    "Batch",
    "Index",
    "Row",
    "Table",
    "Schema",
    "Request",
    "Response",
    "Payload",
    "Watermark",
    "Lock",
    "Cursor",
    "Message",
    "Socket",
    "Query",
    "Terms",
    "Embedding",
    "Vector",
    "Namespace",
    "Project",
    "Settings",
    "Migration",
    "Transaction",
    "Chunk",
    "Frame",
    "Header",
    "Route",
    "Handler",
    "Worker",
    "Job",
    "Timer",
    "Budget",
    "Context",
  ],
  /** Database columns. */
  columns: [
    "id",
    "user_id",
    "created_at",
    "updated_at",
    "email",
    "namespace",
    "project_id",
    "seq",
    "status",
    "tenant_id",
    "deleted_at",
    "session_id",
    "body_json",
    "content_hash",
    "expires_at",
    "attempts",
  ],
  /** Database tables. */
  tables: [
    "users",
    "events",
    "sessions",
    "memory_records",
    "extraction_queue",
    "orders",
    "invoices",
    "accounts",
    "jobs",
    "retrievals",
    "tenants",
    "api_keys",
    "audit_log",
    "subscriptions",
  ],
  /** Error messages as tools print them. */
  errors: [
    "SQLITE_BUSY: database is locked",
    "TypeError: Cannot read properties of undefined (reading 'id')",
    "ECONNRESET",
    "ECONNREFUSED 127.0.0.1:5432",
    "UNIQUE constraint failed: users.email",
    'relation "users" does not exist',
    "AssertionError: Values are not strictly equal",
    "error[E0502]: cannot borrow `self` as mutable because it is also borrowed as immutable",
    "panic: runtime error: index out of range [3] with length 3",
    "ERR_MODULE_NOT_FOUND",
    "Uncaught (in promise) AbortError: The signal has been aborted",
    "context deadline exceeded",
    "ENOSPC: no space left on device",
    "403 Forbidden",
    "ETIMEDOUT",
    'column "created_at" does not exist',
    "RangeError: Maximum call stack size exceeded",
    "SyntaxError: Unexpected token '<', \"<!DOCTYPE \"... is not valid JSON",
    "WebSocket connection to 'ws://localhost:3000/live' failed",
    "Leaking async ops: 1 async operation to op_read was started but never completed",
    "database disk image is malformed",
    "FOREIGN KEY constraint failed",
    "fatal: refusing to merge unrelated histories",
    "error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'",
  ],
  /** Shell commands. */
  commands: [
    "deno test -A",
    "deno task check",
    "git status",
    "npm run build",
    "deno fmt",
    "git diff --stat",
    "npm test -- --watch=false",
    "cargo test",
    "go test ./...",
    "pytest -x -k",
    "docker compose up -d db",
    "sqlite3 data.db .schema",
    "psql -c 'select count(*) from users'",
    "git rebase -i main",
    "kubectl logs deploy/api --tail=200",
    "curl -sv localhost:8080/healthz",
    "rg -n TODO src",
    "deno bench",
    "git log --oneline -20",
    "make lint",
  ],
  /** Things a developer likes. */
  preferences: [
    "small commits with a test for every fix",
    "snake_case file names and camelCase identifiers",
    "no new dependencies without asking",
    "explicit transactions over implicit autocommit",
    "property tests for parsers",
    "logs as JSON lines",
    "failing fast on bad configuration",
    "async functions only at the edges",
  ],
} as const;

/** General software words, for free-text slots: nouns, verbs and adjectives. */
export const LEXICON: {
  readonly nouns: readonly string[];
  readonly verbs: readonly string[];
  readonly adjectives: readonly string[];
} = {
  nouns: (
    "request response payload header cookie token secret credential certificate handshake " +
    "socket stream buffer frame packet message envelope channel topic subscriber publisher " +
    "consumer producer broker partition offset replica leader follower shard cluster node host " +
    "container image volume mount network subnet proxy balancer ingress firewall endpoint path " +
    "parameter argument option flag fallback placeholder template layout widget button dialog " +
    "tooltip dropdown sidebar navbar footer screen viewport scroll focus keyboard shortcut " +
    "animation transition theme palette font icon asset bundle sourcemap minifier transpiler " +
    "compiler linter formatter lexer grammar ast visitor extension loader package dependency " +
    "version release changelog tag branch commit conflict stash diff hunk blame workflow step " +
    "runner artifact matrix environment variable staging production canary rollout experiment " +
    "counter gauge histogram span trace level sampler alert panel aggregation percentile " +
    "throughput bandwidth quota deadline interval clock timestamp duration calendar locale " +
    "currency decimal rounding precision overflow checksum digest signature nonce salt cipher " +
    "key vault rotation expiry claim scope role policy grant profile avatar invitation " +
    "membership organization workspace repository folder directory symlink inode descriptor " +
    "pipe signal process thread fiber coroutine promise future callback listener emitter " +
    "observer subscription stack heap arena slab allocator reference pointer closure iterator " +
    "generator keyset btree trigram posting segment vacuum journal page eviction ttl " +
    "invalidation warmup prefetch debounce jitter breaker bulkhead quorum consensus election " +
    "lease heartbeat gossip replay tombstone backlog lag drift skew sidecar daemon agent probe " +
    "liveness readiness manifest chart overlay registry mirror tarball checksum lockstep " +
    "fixture mock stub spy assertion coverage benchmark flamegraph profiler heapdump " +
    "breakpoint debugger stacktrace panic exception rejection warning deprecation migration " +
    "column constraint trigger view sequence enum collation charset encoding codepoint " +
    "emoji newline whitespace delimiter quote escape regex glob wildcard prefix suffix " +
    "substring slug uuid ulid nanoid counter semaphore mutex latch barrier condition deadline"
  ).split(" "),
  verbs: (
    "parse serialize deserialize encode decode compress decompress encrypt decrypt sign verify " +
    "validate sanitize escape normalize canonicalize hash index tokenize stem rank score sort " +
    "filter group join merge split chunk stream buffer flush sync fetch load store persist " +
    "cache evict expire refresh reload retry poll subscribe publish emit dispatch route forward " +
    "proxy redirect rewrite throttle debounce schedule enqueue dequeue acquire release lock " +
    "unlock spawn fork kill restart drain shutdown boot initialize configure provision deploy " +
    "rollback migrate seed truncate vacuum reindex analyze profile benchmark instrument trace " +
    "log audit redact scrub mask paginate render hydrate mount unmount patch bump pin vendor " +
    "bundle minify transpile compile link lint format typecheck mock stub assert fuzz shrink " +
    "bisect revert squash rebase tag publish batch dedupe coalesce memoize inline hoist"
  ).split(" "),
  adjectives: (
    "stale fresh dirty pending idle busy blocked hung orphaned dangling leaked nullable " +
    "optional required deprecated legacy experimental unstable deterministic idempotent atomic " +
    "durable eventual consistent transactional concurrent parallel sequential async " +
    "synchronous blocking lazy eager cached uncached hot cold warm empty full partial " +
    "truncated corrupted malformed invalid expired revoked unauthorized forbidden missing " +
    "duplicate redundant recursive nested circular shallow deep sorted unsorted unique " +
    "composite primary foreign secondary local remote global regional internal external " +
    "public private readonly writable mutable immutable transient persistent ephemeral " +
    "verbose noisy silent expensive cheap huge tiny brittle robust"
  ).split(" "),
};

const V = VOCABULARY;

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// Slots whose text must keep its case at the start of a sentence (identifiers, paths, errors).
const VERBATIM_START = /^\{(ident|file|table|column|error|command)\}/;

/** Fills a template and capitalises it, unless it starts with a verbatim slot. */
function fillSentence(rng: Rng, template: string, topic?: Topic): string {
  const text = fill(rng, template, topic);
  return VERBATIM_START.test(template) ? text : capitalize(text);
}

/** A camelCase identifier such as `snapshotQueue` or `flushWatermarkBatch`. */
export function makeIdentifier(rng: Rng): string {
  const verb = rng.pickSkewed(V.identVerbs);
  const noun = rng.pickSkewed(V.identNouns);
  return rng.chance(0.25) ? `${verb}${noun}${rng.pick(V.identNouns)}` : `${verb}${noun}`;
}

/** A repository-relative path such as `core/queue/snapshot.ts`. */
export function makeFilePath(rng: Rng): string {
  const dir = rng.pickSkewed(V.dirs);
  const module = rng.pickSkewed(V.modules);
  const file = rng.pickSkewed(V.components).replace(" ", "_");
  const ext = rng.pick(V.extensions);
  const test = rng.chance(0.2) && ext === "ts" ? "_test" : "";
  return rng.chance(0.3)
    ? `${dir}/${module}_${file}${test}.${ext}`
    : `${dir}/${module}/${file}${test}.${ext}`;
}

function area(rng: Rng): string {
  return `${rng.pickSkewed(V.modules)} ${rng.pickSkewed(V.components)}`;
}

/** What one record or one turn is about: template slots prefer these words, as real text does. */
export interface Topic {
  /** Modules discussed. */
  module: string[];
  /** Components discussed. */
  component: string[];
  /** Identifiers mentioned. */
  ident: string[];
  /** Files touched. */
  file: string[];
  /** Tables involved. */
  table: string[];
  /** Columns involved. */
  column: string[];
  /** Libraries used. */
  lib: string[];
  /** Topics (with spaces, as prose writes them). */
  concept: string[];
}

/** Chance that a slot takes a word from the topic rather than from the whole vocabulary. */
const TOPIC_STICKINESS = 0.8;

/** A topic: two modules and components, a few identifiers and files, a table, a library. */
export function makeTopic(rng: Rng): Topic {
  const module = [rng.pickSkewed(V.modules), rng.pickSkewed(V.modules)];
  const component = [rng.pickSkewed(V.components), rng.pickSkewed(V.components)];
  const file = Array.from({ length: rng.int(1, 4) }, (_, i) => {
    const dir = rng.pickSkewed(V.dirs);
    const name = component[i % 2].replace(" ", "_");
    const ext = rng.pick(V.extensions);
    const test = rng.chance(0.2) && ext === "ts" ? "_test" : "";
    return `${dir}/${module[i % 2]}/${name}${test}.${ext}`;
  });
  return {
    module,
    component,
    ident: Array.from({ length: rng.int(2, 4) }, () => makeIdentifier(rng)),
    file,
    table: [rng.pickSkewed(V.tables)],
    column: [rng.pickSkewed(V.columns), rng.pickSkewed(V.columns)],
    lib: [rng.pickSkewed(V.libraries)],
    concept: rng.sample(V.concepts, rng.int(1, 4)).map((c) => c.replaceAll("-", " ")),
  };
}

function fill(rng: Rng, template: string, topic?: Topic): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => {
    const own = topic?.[key as keyof Topic];
    if (own && own.length > 0 && rng.chance(TOPIC_STICKINESS)) return rng.pick(own);
    if (topic && key === "area") return `${fill(rng, "{module} {component}", topic)}`;
    return slot(rng, key);
  });
}

// A gentler skew than `pickSkewed`: the commonest general word appears in a few percent of
// draws, not in most documents.
function pickLexicon(rng: Rng, words: readonly string[]): string {
  return words[Math.floor(rng.next() ** 1.5 * words.length)];
}

function slot(rng: Rng, key: string): string {
  switch (key) {
    case "module":
      return rng.pickSkewed(V.modules);
    case "component":
      return rng.pickSkewed(V.components);
    case "area":
      return area(rng);
    case "bug":
      return rng.pickSkewed(V.bugs);
    case "past":
      return rng.pickSkewed(V.pastVerbs);
    case "verb":
      return rng.pickSkewed(V.imperatives);
    case "lib":
    case "otherLib":
      return rng.pickSkewed(V.libraries);
    case "concept":
      return rng.pickSkewed(V.concepts).replaceAll("-", " ");
    case "ident":
      return makeIdentifier(rng);
    case "file":
      return makeFilePath(rng);
    case "table":
      return rng.pickSkewed(V.tables);
    case "column":
      return rng.pickSkewed(V.columns);
    case "error":
      return rng.pickSkewed(V.errors);
    case "command":
      return rng.pickSkewed(V.commands);
    case "pref":
      return rng.pick(V.preferences);
    case "noun":
    case "noun2":
      return pickLexicon(rng, LEXICON.nouns);
    case "lexVerb":
      return pickLexicon(rng, LEXICON.verbs);
    case "adj":
      return pickLexicon(rng, LEXICON.adjectives);
    case "n":
      return String(rng.int(2, 400));
    case "ms":
      return String(rng.pickSkewed([5, 12, 30, 50, 80, 120, 250, 500, 1200, 3000, 30000]));
    case "line":
      return String(rng.int(1, 900));
    case "port":
      return String(rng.pick([3000, 5432, 6379, 8080, 21100, 9229]));
    default:
      throw new Error(`unknown template slot ${key}`);
  }
}

const TITLE_TEMPLATES = [
  "{past} {bug} in {area}",
  "{past} {bug} in {area}",
  "{past} {area} to use {lib}",
  "{past} {ident} in {module} {component}",
  "{past} {adj} {noun} handling in {area}",
  "{past} {noun} {noun2} for {module}",
  "{area} fails when {table}.{column} is null",
  "{area} hangs after {bug} in {ident}",
  "{area} returns {adj} {noun} after {lexVerb}",
  "Use {lib} for {concept} in {module}",
  "Decided to keep {area} behind {ident}",
  "Decided to {lexVerb} {noun} in {area}",
  "{ident} returns stale {component} after {bug}",
  "{ident} must {lexVerb} the {noun} first",
  "{module} tests flaky because of {bug}",
  "Migration adds {column} to {table}",
  "{error} when running {command}",
  "{adj} {noun} breaks {module} {component}",
  "Why {module} {lexVerb}s {noun} twice",
  "{lib} {noun} quirk in {area}",
  "User prefers {pref}",
];

const SUMMARY_SENTENCES = [
  "The {area} called {ident}() before the lock was taken, so two workers could {verb} the same batch.",
  "Running `{command}` showed `{error}` at {file}:{line}.",
  "Root cause: {ident} assumed {table}.{column} was never null, which breaks for rows imported by the {module} {component}.",
  "We switched from {otherLib} to {lib} for {concept} because the old client leaked connections under load.",
  "The fix moves the {column} check into {ident} and adds a regression test in {file}.",
  "{ident} is called from {n} places; each one now goes through the {area} so {concept} is handled once.",
  "Latency dropped from {ms} ms to {ms} ms after adding an index on {table}({column}).",
  "The {table} table has a nullable {column} column in production but not in the fixtures, which hid the {bug}.",
  "Tests were flaky because {ident} relied on wall-clock time; they now inject a fake clock.",
  "The {area} retries with exponential backoff capped at {ms} ms and gives up after {n} attempts.",
  "Config lives in {file}; the {module} {component} reads it once at startup and ignores later edits.",
  "The {module} server listens on port {port} and the {module} client must reconnect after a restart.",
  "Reproduced with `{command}`; the {bug} only shows up when {n} requests arrive in the same tick.",
  "The {lib} {component} does not support {concept}, so {ident} wraps it and adds the missing case.",
  "Decision: keep {concept} in the {area} rather than in {ident}, to keep the hot path synchronous.",
  "The user prefers {pref}.",
  "Deleting rows from {table} must also clear {column} in the {module} cache, or searches return ghosts.",
  "A {bug} in {ident} dropped the last {component} of every page, visible only with more than {n} rows.",
  "{ident} has to {lexVerb} the {adj} {noun} before it can {lexVerb} the {noun2}.",
  "The {adj} {noun} in {file} was never {adj}, so {ident} kept reading an old {noun2}.",
  "Turning on the {noun} {noun2} in {file} made the {area} {adj} under load.",
  "Instead of {lexVerb}ing every {noun}, the {area} now keeps a {adj} {noun2} keyed by {column}.",
  "{lib} reports the {noun} as {adj} when the {noun2} is {adj}; {ident} normalises both cases.",
  "The {noun} and the {noun2} disagree after a {bug}, so the {module} {component} now compares them on start.",
  "Agreed to {lexVerb} the {noun} in {ident} and to leave the {noun2} {adj} for now.",
  "Because the {noun} is {adj}, the {area} cannot {lexVerb} it without a {noun2}.",
  "Moving the {noun} out of {file} into {ident} removed a {adj} {noun2} from the {module} build.",
  "The {adj} path in {ident} skipped the {noun}, leaving a {adj} {noun2} in {table}.",
  "Profiling with {lib} showed {ident} spending {ms} ms per {noun} on {lexVerb}.",
  "A {adj} {noun} from the {module} {component} reaches {ident} before the {noun2} is ready.",
  "There is no {noun} for {concept} yet; the {area} falls back to a {adj} {noun2}.",
  "The review asked to {lexVerb} the {noun} and to document why the {noun2} stays {adj}.",
  "Old {noun} entries must be {adj} before the {module} {component} can {lexVerb} them.",
  "The {module} team wants the {noun} {noun2} to stay {adj}, so {ident} copies it.",
  "Pinned {lib} to avoid a {adj} {noun} introduced upstream; see {file}.",
  "Each {noun} now carries its {noun2}, which lets {ident} {lexVerb} without touching {table}.",
];

const FACT_TEMPLATES = [
  "{ident} lives in {file}",
  "Tests run with `{command}`",
  "{table}.{column} is indexed",
  "The {area} uses {lib}",
  "{error} means the {module} {component} lost its lock",
  "Timeouts default to {ms} ms",
  "Port {port} is the {module} server",
  "{ident} must run inside a transaction",
  "The {module} {component} is not safe to call concurrently",
  "User prefers {pref}",
  "{lib} is pinned in the lockfile",
  "{concept} is handled in {ident}",
  "{ident} expects a {adj} {noun}",
  "The {noun} {noun2} is {adj} by design",
  "{file} owns the {noun} {noun2}",
  "Never {lexVerb} the {noun} outside {ident}",
  "The {area} keeps {noun} entries for {n} days",
  "{module} {noun} limit is {n}",
  "{ident} returns the {noun2} {adj}",
  "The {noun} comes from {lib}",
  "{table} rows are {adj} after {lexVerb}",
  "Use {ident} to {lexVerb} a {noun}",
];

const PROMPT_TEMPLATES = [
  "why does the {module} {component} fail on the {table} table",
  "{verb} the {bug} in {area}",
  "{verb} {ident}",
  "how do I run the {module} tests",
  "{verb} flaky {module} {component} test",
  "where is {ident} defined",
  "what does {ident} do",
  "can you {verb} the {area} to use {lib}",
  "add an index on {table} {column}",
  "the {area} is slow, profile it",
  "make {ident} handle {concept}",
  "{module} {component} times out after {ms} ms",
  "{verb} {file}",
  "why is {concept} broken in {module}",
  "why is the {noun} {adj} after we {lexVerb} it",
  "how should the {area} {lexVerb} a {adj} {noun}",
  "{lexVerb} the {noun} in {ident} before {lexVerb}ing",
  "is it safe to {lexVerb} the {noun2} concurrently",
  "{verb} the {adj} {noun} handling in {module}",
  "where do we {lexVerb} {noun} for {concept}",
];

const PUNCTUATED_TEMPLATES = [
  'what does "{error}" mean in {file}?',
  "{error} -- how do I fix it?",
  "fix {file}:{line} ({bug})",
  'why is `{ident}()` returning "undefined"?!',
  "{verb} {ident}(): it's {bug}-prone, isn't it?",
  "error: {error} (from `{command}`)",
  "{module}/{component}: {bug}?? see {file}#L{line}",
  '"{module} {component}" AND NOT {bug} OR {lib}*',
  "NEAR({module} {component}) {column}:{table} ^{ident}",
  "c++ / c# -- what's the {lib} equivalent of {ident}?",
  "'{table}'.'{column}' -> null?? [{error}]",
  "{noun}/{noun2} is {adj} (again!) -- {lexVerb} it?",
  'grep for "{ident}" in {file}; is the {noun} {adj}?',
];

/** Realistic example prompts, always part of the query set. */
export const EXAMPLE_QUERIES: readonly string[] = [
  "why does the migration fail on the users table",
  "fix flaky websocket reconnect test",
  "Fixed race in queue snapshot",
  "how do we run the migration?",
  'what does "SQLITE_BUSY: database is locked" mean?',
  "TypeError: Cannot read properties of undefined (reading 'id')",
  "add an index on users(email) -- it's slow",
  "where is snapshotQueue defined?",
  "deno test -A fails with ERR_MODULE_NOT_FOUND",
  "the collector hangs after a restart, any idea why?",
  "c++",
  "???",
  '"',
  "OR AND NOT NEAR *",
  "the",
];

/** A short prompt as a developer types it. */
export function makePrompt(rng: Rng, options: { topic?: Topic } = {}): string {
  return fill(rng, rng.pick(PROMPT_TEMPLATES), options.topic);
}

/** A prompt with punctuation, quotes, paths or FTS5 operator look-alikes. */
export function makePunctuatedPrompt(rng: Rng): string {
  return fill(rng, rng.pick(PUNCTUATED_TEMPLATES));
}

/** A long pasted prompt of at least `minWords` words (context, a log excerpt, the ask). */
export function makeLongPrompt(
  rng: Rng,
  options: { minWords: number; topic?: Topic },
): string {
  const topic = options.topic;
  const parts = [
    fillSentence(rng, rng.pick(PROMPT_TEMPLATES), topic) + ".",
    "Here is what I see:",
  ];
  let words = parts.join(" ").trim().split(/\s+/).length;
  while (words < options.minWords) {
    const part = rng.chance(0.3)
      ? `\n    at ${makeIdentifier(rng)} (${makeFilePath(rng)}:${rng.int(1, 900)}:${
        rng.int(1, 80)
      })`
      : fill(rng, rng.pick(SUMMARY_SENTENCES), topic);
    parts.push(part);
    words += part.trim().split(/\s+/).length;
  }
  parts.push(fill(rng, "Can you {verb} it and add a test in {file}?", topic));
  return parts.join(" ");
}

// ---- records -----------------------------------------------------------------------------------

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** A valid ULID whose time part is `timeMs` and whose random part comes from `rng`. */
export function seededUlid(rng: Rng, timeMs: number): string {
  let time = "";
  let t = Math.floor(timeMs);
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  let random = "";
  for (let i = 0; i < 16; i++) random += CROCKFORD[Math.floor(rng.next() * 32)];
  return time + random;
}

/** A valid namespace whose project id is derived from `label`. */
export function corpusNamespace(label: string): string {
  const rng = createRng(hashString(label));
  let hex = "";
  for (let i = 0; i < 64; i++) hex += "0123456789abcdef"[Math.floor(rng.next() * 16)];
  return `/actor/bench/project/${hex}/`;
}

/** Start of corpus time: every generated timestamp is after it. */
export const CORPUS_EPOCH_MS: number = Date.UTC(2025, 0, 6, 9, 0, 0);

const OBSERVATION_WEIGHTS: readonly MemoryRecord["observation_type"][] = [
  "tool_use",
  "discovery",
  "discovery",
  "decision",
  "error",
  "error",
  "pattern",
  "session_summary",
];

function sentencesUpTo(
  rng: Rng,
  options: { min: number; max: number; topic?: Topic },
): string {
  const target = rng.int(options.min, options.max);
  let text = "";
  for (let attempt = 0; text.length < target && attempt < 100; attempt++) {
    const sentence = fill(rng, rng.pick(SUMMARY_SENTENCES), options.topic);
    const next = text === "" ? sentence : `${text} ${sentence}`;
    if (next.length > options.max) {
      if (text.length >= options.min) break;
      continue;
    }
    text = next;
  }
  return text;
}

/**
 * One memory record, as extraction writes it: a title, a 200–600 character summary, 2–5 facts,
 * 1–4 concepts and 1–4 files. `index` orders `created_at` (about seven minutes apart).
 */
export function makeCorpusRecord(
  rng: Rng,
  options: { namespace: string; index: number },
): MemoryRecord {
  const topic = makeTopic(rng);
  const createdMs = CORPUS_EPOCH_MS + options.index * 420_000 + rng.int(0, 60_000);
  const title = fillSentence(rng, rng.pick(TITLE_TEMPLATES), topic).slice(0, 200);
  const factCount = rng.int(2, 5);
  const facts = new Set<string>();
  for (let attempt = 0; facts.size < factCount && attempt < 50; attempt++) {
    facts.add(fillSentence(rng, rng.pick(FACT_TEMPLATES), topic).slice(0, 500));
  }
  const sources = Array.from(
    { length: rng.int(1, 3) },
    (_, i) => seededUlid(rng, createdMs - 60_000 + i * 1000),
  );
  return {
    record_id: `mr_${seededUlid(rng, createdMs)}`,
    namespace: options.namespace,
    strategy: rng.chance(0.85) ? "llm-summary" : "heuristic",
    title,
    summary: sentencesUpTo(rng, { min: 200, max: 600, topic }),
    facts: [...facts],
    concepts: topic.concept.map((c) => c.replaceAll(" ", "-")),
    files_touched: [...new Set(topic.file)],
    observation_type: rng.pick(OBSERVATION_WEIGHTS),
    source_event_ids: sources,
    created_at: new Date(createdMs).toISOString(),
  };
}

/** `count` records from `seed`, indexes starting at `startIndex` (default 0). */
export function generateRecords(
  count: number,
  options: { seed: number; namespace: string; startIndex?: number },
): MemoryRecord[] {
  const rng = createRng(options.seed);
  const start = options.startIndex ?? 0;
  return Array.from(
    { length: count },
    (_, i) => makeCorpusRecord(rng, { namespace: options.namespace, index: start + i }),
  );
}

// ---- events ------------------------------------------------------------------------------------

const CODE_LINES = [
  "export function {ident}(input: {component}): Promise<void> {",
  '  const rows = db.prepare("SELECT * FROM {table} WHERE {column} = ?").all(id);',
  '  if (!rows.length) throw new Error("{error}");',
  "  await {ident}(rows, { timeoutMs: {ms} });",
  "  // TODO({module}): handle {bug} when the {component} is empty",
  "  for (const row of rows) {ident}(row.{column});",
  "  return {ident}(options);",
  "}",
  'import { {ident} } from "./{module}/{component}.ts";',
  'const {column} = Number(env.get("{module}_{column}") ?? {n});',
];

const OUTPUT_LINES = [
  "ok | {n} passed | 0 failed ({ms}ms)",
  "{file} => {ident} ... ok ({ms}ms)",
  "{file} => {ident} ... FAILED ({ms}ms)",
  "error: {error}",
  "    at {ident} ({file}:{line}:{n})",
  "Check {file}",
  "{file}:{line}:{n}: {error}",
  "warning: unused variable `{column}` in {ident}",
  "[{module}] {ident} took {ms} ms",
  " M {file}",
  " {n} files changed, {n} insertions(+), {n} deletions(-)",
];

function linesUpTo(
  rng: Rng,
  options: { templates: readonly string[]; chars: number; topic: Topic },
): string {
  const lines: string[] = [];
  let length = 0;
  while (length < options.chars) {
    const line = fill(rng, rng.pick(options.templates), options.topic);
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join("\n");
}

function toolUseBody(rng: Rng, topic: Topic): EventBody {
  // Serialised bodies land between about 1 and 2 KB once keys and escapes are added.
  const chars = rng.int(850, 1750);
  switch (rng.pick(["execute_bash", "execute_bash", "fs_read", "fs_write", "grep"] as const)) {
    case "execute_bash":
      return {
        type: "json",
        data: {
          tool_name: "execute_bash",
          tool_input: {
            command: fill(rng, "{command}", topic),
            summary: makePrompt(rng, { topic }),
          },
          tool_response: {
            exit_status: rng.chance(0.7) ? 0 : 1,
            stdout: linesUpTo(rng, { templates: OUTPUT_LINES, chars: chars - 80, topic }),
            stderr: rng.chance(0.3) ? fill(rng, "{error}", topic) : "",
          },
        },
      };
    case "fs_read": {
      const start = rng.int(1, 400);
      const content = linesUpTo(rng, { templates: CODE_LINES, chars, topic });
      return {
        type: "json",
        data: {
          tool_name: "fs_read",
          tool_input: {
            operations: [{
              mode: "Line",
              path: rng.pick(topic.file),
              start_line: start,
              end_line: start + content.split("\n").length,
            }],
          },
          tool_response: { content },
        },
      };
    }
    case "fs_write": {
      const half = Math.floor(chars / 2);
      return {
        type: "json",
        data: {
          tool_name: "fs_write",
          tool_input: {
            command: "str_replace",
            path: rng.pick(topic.file),
            old_str: linesUpTo(rng, { templates: CODE_LINES, chars: half, topic }),
            new_str: linesUpTo(rng, { templates: CODE_LINES, chars: half, topic }),
          },
          tool_response: { success: true },
        },
      };
    }
    case "grep": {
      const matches: { file: string; line: number; text: string }[] = [];
      let length = 0;
      while (length < chars) {
        const match = {
          file: rng.chance(0.5) ? rng.pick(topic.file) : makeFilePath(rng),
          line: rng.int(1, 900),
          text: fill(rng, rng.pick(CODE_LINES), topic).trim(),
        };
        matches.push(match);
        length += match.file.length + match.text.length + 30;
      }
      return {
        type: "json",
        data: {
          tool_name: "grep",
          tool_input: { pattern: rng.pick(topic.ident), path: rng.pickSkewed(V.dirs) },
          tool_response: { matches },
        },
      };
    }
  }
}

/**
 * An endless, deterministic stream of events as a shim posts them: sessions of turns, each
 * turn a prompt, 1–8 tool uses (1–2 KB JSON bodies with paths and command output) and a turn
 * summary. Roughly 20% prompts, 65% tool uses, 15% summaries.
 */
export function* corpusEvents(
  options: { seed: number; namespace: string; projectPath?: string },
): Generator<Event, never> {
  const rng = createRng(options.seed);
  const source = {
    surface: "kiro-cli" as const,
    version: "0.1.0",
    client_id: "bench",
    project_path: options.projectPath ?? "/home/dev/src/project",
  };
  let timeMs = CORPUS_EPOCH_MS;
  for (let session = 0;; session++) {
    const sessionId = `session-${seededUlid(rng, timeMs).toLowerCase()}`;
    const turns = rng.int(2, 8);
    for (let turn = 0; turn < turns; turn++) {
      const topic = makeTopic(rng);
      const prompt = rng.chance(0.1)
        ? makeLongPrompt(rng, { minWords: 60, topic })
        : makePrompt(rng, { topic });
      const base = {
        session_id: sessionId,
        actor_id: "bench",
        namespace: options.namespace,
        schema_version: 1 as const,
        source,
      };
      timeMs += rng.int(5_000, 120_000);
      const promptId = seededUlid(rng, timeMs);
      yield {
        ...base,
        event_id: promptId,
        kind: "prompt",
        body: { type: "text", content: prompt },
        valid_time: new Date(timeMs).toISOString(),
      };
      const tools = rng.int(1, 6);
      for (let i = 0; i < tools; i++) {
        timeMs += rng.int(200, 20_000);
        yield {
          ...base,
          event_id: seededUlid(rng, timeMs),
          parent_event_id: promptId,
          kind: "tool_use",
          body: toolUseBody(rng, topic),
          valid_time: new Date(timeMs).toISOString(),
        };
      }
      timeMs += rng.int(500, 5_000);
      yield {
        ...base,
        event_id: seededUlid(rng, timeMs),
        parent_event_id: promptId,
        kind: "session_summary",
        body: {
          type: "message",
          turns: [
            { role: "user", content: prompt },
            { role: "assistant", content: sentencesUpTo(rng, { min: 150, max: 500, topic }) },
          ],
        },
        valid_time: new Date(timeMs).toISOString(),
      };
    }
    timeMs += rng.int(600_000, 36_000_000);
  }
}

/** The first `count` events of `corpusEvents(options)`. */
export function generateEvents(
  count: number,
  options: { seed: number; namespace: string; projectPath?: string },
): Event[] {
  const out: Event[] = [];
  for (const event of corpusEvents(options)) {
    if (out.length >= count) break;
    out.push(event);
  }
  return out;
}

// ---- queries -----------------------------------------------------------------------------------

/** A search query and what kind of prompt it imitates. */
export interface CorpusQuery {
  /** The query text. */
  text: string;
  /** `example` (fixed list), `short`, `punctuated` or `long` (60+ words). */
  kind: "example" | "short" | "punctuated" | "long";
}

/**
 * `count` queries: the `EXAMPLE_QUERIES` first (as many as fit), then about 50% short prompts,
 * 30% prompts with punctuation and quotes, and 20% long pasted prompts of 60–160 words.
 */
export function generateQueries(count: number, options: { seed: number }): CorpusQuery[] {
  const rng = createRng(options.seed);
  const out: CorpusQuery[] = EXAMPLE_QUERIES.slice(0, count).map((text) => ({
    text,
    kind: "example" as const,
  }));
  while (out.length < count) {
    const u = rng.next();
    if (u < 0.5) out.push({ text: makePrompt(rng), kind: "short" });
    else if (u < 0.8) out.push({ text: makePunctuatedPrompt(rng), kind: "punctuated" });
    else {
      out.push({ text: makeLongPrompt(rng, { minWords: rng.int(60, 160) }), kind: "long" });
    }
  }
  return out;
}
