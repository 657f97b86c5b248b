/**
 * The settings.json specification: every key with its type, default, range or allowed
 * values and a description, as plain data. This is the one definition of the settings;
 * defaults, validation (`validate.ts`), the "allowed" text of every error message and the
 * TypeScript types ({@linkcode SettingsValues}) are all derived from it.
 *
 * Deliberately free of zod: shims load settings on every hook, and resolving zod at start-up
 * cost a shim about 23 ms. A zod schema, if one is ever wanted, must be built from this spec.
 *
 * @module
 */

/** An integer key. */
export interface IntegerSpec {
  /** Kind of value. */
  readonly type: "integer";
  /** Smallest allowed value. */
  readonly min: number;
  /** Largest allowed value. */
  readonly max: number;
  /** Value used when the key is absent. */
  readonly default: number;
  /** What the key does. */
  readonly description: string;
}

/** A (possibly fractional) number key. */
export interface NumberSpec {
  /** Kind of value. */
  readonly type: "number";
  /** Smallest allowed value. */
  readonly min: number;
  /** Largest allowed value. */
  readonly max: number;
  /** Value used when the key is absent. */
  readonly default: number;
  /** What the key does. */
  readonly description: string;
}

/** A boolean key. */
export interface BooleanSpec {
  /** Kind of value. */
  readonly type: "boolean";
  /** Value used when the key is absent. */
  readonly default: boolean;
  /** What the key does. */
  readonly description: string;
}

/** A key holding one of a fixed set of strings. */
export interface EnumSpec<T extends string = string> {
  /** Kind of value. */
  readonly type: "enum";
  /** The allowed values. */
  readonly values: readonly T[];
  /** Value used when the key is absent. */
  readonly default: T;
  /** What the key does. */
  readonly description: string;
}

/** A command line: a non-empty array of non-empty strings. */
export interface CommandSpec {
  /** Kind of value. */
  readonly type: "command";
  /** Value used when the key is absent (copied for every load). */
  readonly default: readonly string[];
  /** What the key does. */
  readonly description: string;
}

/** A list of environment variable names (possibly empty). */
export interface NamesSpec {
  /** Kind of value. */
  readonly type: "names";
  /** Value used when the key is absent (copied for every load). */
  readonly default: readonly string[];
  /** What the key does. */
  readonly description: string;
}

/** A loopback host name or address (127.x.x.x, ::1 or localhost). */
export interface LoopbackHostSpec {
  /** Kind of value. */
  readonly type: "loopback-host";
  /** Value used when the key is absent. */
  readonly default: string;
  /** What the key does. */
  readonly description: string;
}

/**
 * A PostgreSQL URL without a password (`postgres://user@host:port/db`), or empty for none: the
 * password never sits in settings.json (see the team password file).
 */
export interface PostgresUrlSpec {
  /** Kind of value. */
  readonly type: "postgres-url";
  /** Value used when the key is absent. */
  readonly default: string;
  /** What the key does. */
  readonly description: string;
}

/** The specification of one key. */
export type KeySpec =
  | PostgresUrlSpec
  | IntegerSpec
  | NumberSpec
  | BooleanSpec
  | EnumSpec
  | CommandSpec
  | NamesSpec
  | LoopbackHostSpec;

/** Sections of keys. */
export type SettingsSpecShape = Readonly<Record<string, Readonly<Record<string, KeySpec>>>>;

function int(min: number, max: number, fallback: number, description: string): IntegerSpec {
  return { type: "integer", min, max, default: fallback, description };
}

function ratio(fallback: number, description: string): NumberSpec {
  return { type: "number", min: 0, max: 1, default: fallback, description };
}

function bool(fallback: boolean, description: string): BooleanSpec {
  return { type: "boolean", default: fallback, description };
}

function oneOf<const T extends string>(
  values: readonly T[],
  fallback: NoInfer<T>,
  description: string,
): EnumSpec<T> {
  return { type: "enum", values, default: fallback, description };
}

function command(fallback: readonly string[], description: string): CommandSpec {
  return { type: "command", default: fallback, description };
}

/**
 * The shortest timeout an LLM agent's session may be given (extraction, reconciliation,
 * compaction): a session starts the agent before the model says anything, and one whole
 * `claude-code-acp` session took 11.5–21.2 s at load 14–21 on two cores with a model that answered
 * at once (`deno task bench acp-start`, 22 sessions in two runs). 5 s, the old floor, timed such
 * sessions out in `session/new`.
 */
export const AGENT_TIMEOUT_MIN_MS = 30_000;

/**
 * The environment an agent gets by default: what a command-line program needs to run (PATH,
 * HOME, the user, locale, terminal, temp dir, proxies and CA certificates) and what Claude Code
 * and kiro-cli need to reach their model (Anthropic API, Amazon Bedrock).
 */
export const AGENT_ENV_DEFAULT: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LC_ALL",
  "TERM",
  "TMPDIR",
  "HTTPS_PROXY",
  "HTTP_PROXY",
  "NO_PROXY",
  "NODE_EXTRA_CA_CERTS",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "ANTHROPIC_BASE_URL",
  "ANTHROPIC_MODEL",
  "CLAUDE_CONFIG_DIR",
  "CLAUDE_CODE_USE_BEDROCK",
  "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
  "AWS_PROFILE",
  "AWS_REGION",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
];

/** Every settings.json key, by section, in the order they are checked and written. */
export const SETTINGS_SPEC = deepFreeze({
  collector: {
    host: {
      type: "loopback-host",
      default: "127.0.0.1",
      description: "Address the collector binds and everything else connects to; loopback only.",
    } as LoopbackHostSpec,
    port: int(
      1,
      65535,
      21100,
      "TCP port of the collector; when unset, 21100 + (uid mod 4000): one port per user.",
    ),
  },
  shim: {
    timeoutMs: int(50, 30_000, 2000, "How long a retrieving hook waits for the collector."),
    maxBodyBytes: int(4096, 8_388_608, 524_288, "Largest event body a hook sends (UTF-8 bytes)."),
  },
  retrieval: {
    budgetMs: int(10, 5000, 500, "Time budget of context retrieval for one prompt."),
    limit: int(1, 50, 10, "Most memory records injected into one prompt."),
    tokenBudget: int(100, 20_000, 2000, "Approximate token budget of the injected context."),
  },
  extraction: {
    strategy: oneOf(
      ["auto", "acp", "heuristic"],
      "auto",
      "How events become memories: an ACP agent, heuristics, or auto (ACP when available).",
    ),
    agentCommand: command(
      ["kiro-cli", "acp", "--agent", "kiro-learn-compressor"],
      "The ACP agent command that distils events into memory records.",
    ),
    idleMs: int(
      5000,
      300_000,
      30_000,
      "A project whose queue has been idle this long is extracted.",
    ),
    sizeThresholdBytes: int(
      1024,
      16_777_216,
      262_144,
      "A project with this many queued bytes is extracted without waiting for idle.",
    ),
    promptCapBytes: int(4096, 1_048_576, 65_536, "Largest extraction prompt sent to the agent."),
    timeoutMs: int(
      AGENT_TIMEOUT_MIN_MS,
      600_000,
      60_000,
      "How long one extraction call may take, the agent's start included.",
    ),
    maxAttempts: int(1, 10, 3, "Attempts per extraction call before it is given up."),
    concurrency: int(1, 8, 2, "LLM sessions running at once, across all projects."),
    breakerThreshold: int(
      1,
      100,
      3,
      "Consecutive extraction failures that open the circuit breaker.",
    ),
    breakerCooldownMs: int(
      1000,
      86_400_000,
      300_000,
      "How long the open breaker pauses extraction.",
    ),
    agentEnv: {
      type: "names",
      default: AGENT_ENV_DEFAULT,
      description: "The only environment variables the collector passes to the agents it runs " +
        "(extraction, reconciliation, compaction), besides KIRO_LEARN_INTERNAL=1; exact names.",
    } as NamesSpec,
    dailyBudgetChars: int(
      0,
      1_000_000_000,
      2_000_000,
      "Bytes exchanged with LLM agents over ACP per day, both ways (our messages with the prompt " +
        "and its instructions; the agent's reply and updates), before a session is refused; the " +
        "agent's own system prompt and tools never cross that pipe (0 = never call the LLM).",
    ),
  },
  compaction: {
    enabled: bool(true, "Compact a project's extraction queue when it grows past the threshold."),
    thresholdBytes: int(
      65_536,
      67_108_864,
      1_048_576,
      "Queued bytes of one project that trigger compaction.",
    ),
    timeoutMs: int(
      AGENT_TIMEOUT_MIN_MS,
      600_000,
      120_000,
      "How long one compaction call may take, the agent's start included.",
    ),
    maxAttempts: int(1, 10, 2, "Attempts per compaction before it is given up."),
    agentCommand: command(
      ["kiro-cli", "acp", "--agent", "kiro-learn-compactor"],
      "The ACP agent command that compacts a queue.",
    ),
  },
  reconciliation: {
    enabled: bool(true, "Reconcile new memories with similar existing ones."),
    agentCommand: command(
      ["kiro-cli", "acp", "--agent", "kiro-learn-reconciler"],
      "The ACP agent command that judges how new and existing memories relate.",
    ),
    judgeTimeoutMs: int(
      AGENT_TIMEOUT_MIN_MS,
      300_000,
      30_000,
      "How long one reconciliation call may take, the agent's start included.",
    ),
    clusterThreshold: ratio(0.85, "Similarity above which new memories form one cluster."),
    neighborThreshold: ratio(0.8, "Similarity above which an existing memory is a neighbour."),
    neighborPoolMax: int(1, 100, 10, "Most neighbours shown to the judge."),
  },
  embedding: {
    backend: oneOf(
      ["use-lite", "onnx", "off"],
      "use-lite",
      "Embedding model for vector search, or off (lexical search only).",
    ),
    timeoutMs: int(100, 60_000, 2000, "How long embedding one text may take."),
    vectorIdleMs: int(
      1000,
      86_400_000,
      600_000,
      "How long a project's vectors stay in memory unused before they are dropped (they reload " +
        "from the database when next searched).",
    ),
    // A WASM memory never shrinks: the first query embedding grows the use-lite Worker by
    // ~28 MiB and a backfill batch by more, held for good, while a terminated Worker's memory
    // goes back to the system. Two minutes, so a session's prompts (each embeds a query) do
    // not reload the model (~0.3 s of one core) between every two of them.
    workerIdleRecycleMs: int(
      0,
      86_400_000,
      120_000,
      "How long the use-lite model goes unused before a model Worker whose memory grew is " +
        "replaced by a freshly loaded one, giving the growth back (0 = never).",
    ),
  },
  spool: {
    maxBytes: int(
      1_048_576,
      1_073_741_824,
      67_108_864,
      "Bound on events waiting in the spool while the collector is down.",
    ),
  },
  team: {
    url: {
      type: "postgres-url",
      default: "",
      description:
        "The team's PostgreSQL database (`kiro-learn team join` writes it); empty = no " +
        "team sharing.",
    } as PostgresUrlSpec,
    pollMs: int(
      100,
      60_000,
      1000,
      "How often local changes are published and, besides notifications, teammates' pulled.",
    ),
  },
  log: {
    level: oneOf(["debug", "info", "warn", "error"], "info", "Least severe level logged."),
  },
}) satisfies SettingsSpecShape;

/** The spec as written. */
export type SettingsSpec = typeof SETTINGS_SPEC;

/** The TypeScript type of a key's value. */
export type ValueOf<S> = S extends IntegerSpec | NumberSpec ? number
  : S extends BooleanSpec ? boolean
  : S extends EnumSpec<infer T> ? T
  : S extends CommandSpec ? string[]
  : S extends NamesSpec ? string[]
  : S extends LoopbackHostSpec ? string
  : S extends PostgresUrlSpec ? string
  : never;

/** Validated settings values (the contents of settings.json with defaults applied). */
export type SettingsValues = {
  [Section in keyof SettingsSpec]: {
    [Key in keyof SettingsSpec[Section]]: ValueOf<SettingsSpec[Section][Key]>;
  };
};

/** The settings.json input shape (every section and key optional). */
export type SettingsInput = {
  [Section in keyof SettingsSpec]?: {
    [Key in keyof SettingsSpec[Section]]?: ValueOf<SettingsSpec[Section][Key]>;
  };
};

/** Log levels accepted by `log.level`. */
export type LogLevel = SettingsValues["log"]["level"];

/** Extraction strategies accepted by `extraction.strategy`. */
export type ExtractionStrategy = SettingsValues["extraction"]["strategy"];

/** Embedding backends accepted by `embedding.backend`. */
export type EmbeddingBackend = SettingsValues["embedding"]["backend"];

/** The human description of what a key accepts, as error messages print it. */
export function allowedText(spec: KeySpec): string {
  switch (spec.type) {
    case "integer":
      return `integer ${spec.min}–${spec.max}`;
    case "number":
      return `number ${spec.min}–${spec.max}`;
    case "boolean":
      return "true or false";
    case "enum":
      return `one of ${spec.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "command":
      return "a non-empty array of non-empty strings (the command and its arguments)";
    case "names":
      return "an array of environment variable names (letters, digits, _; no wildcards)";
    case "loopback-host":
      return "a loopback host: 127.x.x.x, ::1 or localhost";
    case "postgres-url":
      return "empty, or postgres://user@host[:port]/database without a password";
  }
}

/** A key's spec, or undefined for an unknown section or key. */
export function keySpec(section: string, key: string): KeySpec | undefined {
  const keys = (SETTINGS_SPEC as SettingsSpecShape)[section];
  return keys !== undefined && Object.hasOwn(keys, key) ? keys[key] : undefined;
}

/** True for hosts that only accept local connections: 127.x.x.x, ::1 or localhost. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  if (h === "localhost" || h === "::1") return true;
  const m = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  return m !== null && m.slice(1).every((part) => Number(part) <= 255);
}

/**
 * Why `value` is not a team database URL we accept, or null when it is one (or empty). The
 * password belongs in the team password file, never in settings.json.
 */
export function postgresUrlProblem(value: string): string | null {
  if (value === "") return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "is not a URL";
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    return "is not a postgres:// URL";
  }
  if (url.password !== "") return "holds a password (keep it in the team password file)";
  if (url.username === "") return "names no user (postgres://USER@host/db)";
  if (url.hostname === "") return "names no host";
  if (url.pathname.length <= 1) return "names no database (postgres://user@host/DATABASE)";
  return null;
}

/** `host:port` of a team database URL (the port defaults to PostgreSQL's 5432). */
export function postgresHostPort(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port === "" ? 5432 : Number(u.port)}`;
}

/** Fresh default values (new arrays every call, so loaded settings never share one). */
export function defaultValues(): SettingsValues {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [section, keys] of Object.entries(SETTINGS_SPEC as SettingsSpecShape)) {
    const values: Record<string, unknown> = {};
    for (const [key, spec] of Object.entries(keys)) {
      values[key] = Array.isArray(spec.default) ? [...spec.default] : spec.default;
    }
    out[section] = values;
  }
  return out as SettingsValues;
}

/** Freezes `value` and everything inside it; returns it. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Every default (frozen; never mutate). */
export const DEFAULTS: Readonly<SettingsValues> = deepFreeze(defaultValues());
