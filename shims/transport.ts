/**
 * The transport every shim shares: settings and token, building an event, capping its body,
 * posting it with a timeout, and spooling it when the collector cannot take it.
 *
 * Before the token or the event leaves, the process on the collector's port must prove on the
 * same connection that it holds this data dir's token (the hello, `core/api/wire.ts`); one that
 * cannot is sent nothing, and nothing it says is printed.
 *
 * Failure policy (an event that reached a shim is never lost, and a hook never fails):
 * - connection refused, timeout, 5xx, 401/403 (a token or host mismatch), a missing token
 *   file (the collector never ran), a net permission refusal, a listener that fails the
 *   hello (not our collector) → the event is spooled;
 * - 400/413/415/422 (the collector says the event itself is invalid) → a stderr note, since
 *   spooling it would only get it rejected again;
 * - nothing here throws.
 *
 * @module
 */
import type { Event, EventBody, EventKind, Surface } from "@kiro-learn/core/schemas";
import {
  currentActor,
  type EnvLike,
  type ProjectIdentity,
  resolveProject,
} from "@kiro-learn/core/project";
import { dataDir, dataPaths, DEFAULTS, loadSettings } from "@kiro-learn/core/settings";
import { spoolEvent, type SpoolQuery } from "@kiro-learn/core/spool";
import { hookBodyCap, hookEvent } from "@kiro-learn/core/hooks";
import {
  checkCollectorProof,
  collectorBaseUrl,
  eventQueryString,
  helloPath,
  impostorMessage,
  newHelloNonce,
  portAccepts,
  readHelloProof,
  readRetrievalContext,
  readToken,
  ROUTES,
} from "@kiro-learn/core/api/wire";
import { HttpNotApprovedError, httpPost, HttpTimeoutError } from "./http.ts";
import { note } from "./_stderr.ts";
import type { AutoStartOutcome } from "./_autostart.ts";

/** What a shim needs from settings.json and the data dir. */
export interface ShimConfig {
  /** The collector's host (a loopback name or address, IPv6 without brackets). */
  collectorHost: string;
  /** The collector's port. */
  collectorPort: number;
  /** `host:port`, for messages. */
  collectorAddress: string;
  /** The bearer token, or null when the collector never created one. */
  token: string | null;
  /** `shim.timeoutMs`: the budget of a retrieving post. */
  timeoutMs: number;
  /** Body cap in UTF-8 bytes (`shim.maxBodyBytes`, at most the schema's 1 MiB). */
  maxBodyBytes: number;
  /** `<dataDir>/spool`. */
  spoolDir: string;
  /** `spool.maxBytes`. */
  spoolMaxBytes: number;
  /** The collector's starter, run when the collector is down (`<dataDir>/bin/start-collector`). */
  starter: string;
  /** The token file (read again once a collector the hook started is up). */
  tokenFile: string;
}

/** True when something accepts connections on the collector's port. Never throws. */
export function collectorListening(config: ShimConfig): Promise<boolean> {
  return portAccepts(config.collectorHost, config.collectorPort);
}

/**
 * Waits until a collector accepts connections on the configured port and its token file exists,
 * or `deadline` passes; returns the token, or null. Polls every 50 ms: a start takes ~1 s.
 */
export async function waitForCollector(
  config: ShimConfig,
  options: { deadline: number },
): Promise<string | null> {
  while (Date.now() < options.deadline) {
    if (await collectorListening(config)) {
      const token = tokenOrNull(config.tokenFile);
      if (token !== null) return token;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return null;
}

/** Posts that do not retrieve wait at most this long: they only store. */
export const STORE_ONLY_TIMEOUT_MS = 1000;

/** SessionEnd-style hooks that the agent kills quickly wait at most this long. */
export const FAST_EXIT_TIMEOUT_MS = 500;

/**
 * Loads settings and the token. Invalid settings fall back to the defaults (with a note),
 * because a hook must keep working; only a missing data dir location returns null.
 */
export function loadShimConfig(options: { env?: EnvLike } = {}): ShimConfig | null {
  let values: {
    collector: { host: string; port: number };
    shim: { timeoutMs: number; maxBodyBytes: number };
    spool: { maxBytes: number };
  } = DEFAULTS;
  let dir: string;
  try {
    const settings = loadSettings({ env: options.env });
    values = settings;
    dir = settings.dataDir;
  } catch (error) {
    const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
    try {
      dir = dataDir(options.env);
    } catch {
      note(`${message}; event not recorded`);
      return null;
    }
    note(`${message} (using default settings)`);
  }
  const paths = dataPaths(dir);
  const address = collectorBaseUrl(values.collector.host, values.collector.port).slice(7);
  return {
    collectorHost: values.collector.host,
    collectorPort: values.collector.port,
    collectorAddress: address,
    token: tokenOrNull(paths.token),
    timeoutMs: values.shim.timeoutMs,
    maxBodyBytes: hookBodyCap(values.shim.maxBodyBytes),
    spoolDir: paths.spool,
    spoolMaxBytes: values.spool.maxBytes,
    starter: paths.starter,
    tokenFile: paths.token,
  };
}

// A hook never fails over a token it cannot read: it spools instead.
function tokenOrNull(path: string): string | null {
  try {
    return readToken(path);
  } catch {
    return null;
  }
}

/**
 * This machine's name for `source.client_id`. `Deno.hostname()` needs `--allow-sys=hostname`
 * (granted to shims: it reveals nothing beyond the name); without it, `"localhost"`.
 */
export function clientId(): string {
  try {
    const name = Deno.hostname().trim();
    if (name !== "") return name.slice(0, 256);
  } catch {
    // Not permitted or not available.
  }
  return "localhost";
}

/** The parts of an event a hook decides. */
export interface EventDraft {
  /** What happened. */
  kind: EventKind;
  /** Its content. */
  body: EventBody;
}

/** Context for {@linkcode buildEvent}. */
export interface BuildEventOptions {
  /** The agent. */
  surface: Surface;
  /** Session id (1–128 characters). */
  sessionId: string;
  /** The hook's working directory (the project is derived from it). */
  cwd: string;
  /** Body cap in UTF-8 bytes. */
  maxBodyBytes: number;
  /** Environment for the actor (defaults to `Deno.env`). */
  env?: EnvLike;
  /** Clock. */
  now?: Date;
  /** `source.client_id`; defaults to {@linkcode clientId}. */
  clientId?: string;
}

const projects = new Map<string, ProjectIdentity>();

/** Resolves (once per process and cwd) the project a hook runs in. */
export function projectFor(cwd: string, env?: EnvLike): ProjectIdentity {
  const actor = currentActor(env);
  const key = `${actor}\u0000${cwd}`;
  let identity = projects.get(key);
  if (identity === undefined) {
    identity = resolveProject(cwd, { actor });
    projects.set(key, identity);
  }
  return identity;
}

/** Builds a complete, schema-valid event; a body over the cap is cut (and marked). */
export function buildEvent(draft: EventDraft, options: BuildEventOptions): Event {
  const project = projectFor(options.cwd, options.env);
  return hookEvent(draft, {
    surface: options.surface,
    sessionId: options.sessionId,
    project: { root: project.project_root, namespace: project.namespace },
    actor: currentActor(options.env),
    clientId: options.clientId ?? clientId(),
    maxBodyBytes: options.maxBodyBytes,
    now: options.now,
    warn: note,
  });
}

/** What the collector said to one post. */
export type PostResult =
  | {
    status: "ok";
    context: string;
    /** False when the collector had the event already (or, for a backfill, the hooks' copy). */
    stored: boolean;
  }
  | { status: "rejected"; message: string }
  | {
    status: "unavailable";
    message: string;
    /** True when nothing listens there (or it never ran): starting it may help. */
    down: boolean;
  };

/** Options for {@linkcode postEvent}. */
export interface PostOptions {
  /** `retrieve` or `retrieve-start` (prompt), `resume` (session start) or `""`. */
  query: SpoolQuery;
  /** Abort after this long. */
  timeoutMs: number;
}

/** POSTs one event to `/v1/events` (see `http.ts` for why not `fetch`). Never throws. */
export async function postEvent(
  event: Event,
  config: ShimConfig,
  options: PostOptions,
): Promise<PostResult> {
  if (config.token === null) {
    return {
      status: "unavailable",
      message: "collector not set up yet (no token file)",
      down: true,
    };
  }
  const token = config.token;
  const challenge = { port: config.collectorPort, nonce: newHelloNonce() };
  try {
    const response = await httpPost(
      { hostname: config.collectorHost, port: config.collectorPort },
      ROUTES.events + eventQueryString(options.query),
      {
        before: {
          path: helloPath(challenge.nonce),
          approve: (hello) =>
            hello.status === 200 &&
            checkCollectorProof(token, { ...challenge, proof: readHelloProof(hello.body) }),
        },
        headers: {
          "Authorization": `Bearer ${config.token}`,
          "Content-Type": "application/json",
        },
        body: JSON.stringify(event),
        timeoutMs: Math.max(1, options.timeoutMs),
      },
    );
    if (response.status >= 200 && response.status < 300) {
      return {
        status: "ok",
        context: contextFrom(response.body),
        stored: storedFrom(response.body),
      };
    }
    const reason = errorFrom(response.body);
    if ([400, 413, 415, 422].includes(response.status)) {
      return {
        status: "rejected",
        message: `collector refused the event (${response.status} ${reason})`,
      };
    }
    return {
      status: "unavailable",
      message: `collector answered ${response.status} ${reason}`,
      down: false,
    };
  } catch (error) {
    return {
      status: "unavailable",
      message: describeFailure(error, config, options.timeoutMs),
      down: error instanceof Deno.errors.ConnectionRefused,
    };
  }
}

// An older collector's answer without the field: counted as stored.
function storedFrom(text: string): boolean {
  try {
    return JSON.parse(text)?.stored !== false;
  } catch {
    return true;
  }
}

function contextFrom(text: string): string {
  try {
    return readRetrievalContext(JSON.parse(text)) ?? "";
  } catch {
    return "";
  }
}

function errorFrom(text: string): string {
  try {
    const error = JSON.parse(text)?.error;
    if (typeof error === "string") return error;
  } catch {
    // Not JSON.
  }
  return text.slice(0, 80);
}

function describeFailure(error: unknown, config: ShimConfig, timeoutMs: number): string {
  if (error instanceof HttpNotApprovedError) return impostorMessage(config.collectorAddress);
  if (error instanceof HttpTimeoutError) {
    return `collector at ${config.collectorAddress} did not answer within ${timeoutMs} ms`;
  }
  if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
    return `not permitted to reach ${config.collectorAddress} (port changed? re-run kiro-learn install)`;
  }
  if (error instanceof Deno.errors.ConnectionRefused) {
    return `collector not reachable at ${config.collectorAddress} (is it running? kiro-learn start)`;
  }
  return `post to ${config.collectorAddress} failed: ${
    error instanceof Error ? error.message : String(error)
  }`;
}

/** One event to deliver and what to ask for with it. */
export interface Delivery {
  /** The event. */
  event: Event;
  /** Retrieval to request. */
  query: SpoolQuery;
}

/** How one delivery ended. */
export interface DeliveryResult {
  /** The event's id. */
  event_id: string;
  /** `posted`: the collector has it; `spooled`: on disk for the collector to drain later; `lost`: neither (reported on stderr). */
  outcome: "posted" | "spooled" | "lost";
  /** The context the collector returned ('' when none). */
  context: string;
}

// Waits for a collector the hook started, then posts `item` once more with the token it wrote.
async function postWhenUp(
  item: Delivery,
  config: ShimConfig,
  options: { deadline: number },
): Promise<{ context: string; config: ShimConfig } | null> {
  const token = await waitForCollector(config, options);
  if (token === null) return null;
  const next = { ...config, token };
  const retry = await postEvent(item.event, next, {
    query: item.query,
    timeoutMs: Math.max(1, options.deadline - Date.now()),
  });
  return retry.status === "ok" ? { context: retry.context, config: next } : null;
}

/** Options for {@linkcode deliver}. */
export interface DeliverOptions {
  /** Per-post timeout. */
  timeoutMs: number;
  /**
   * Called once when the collector turns out to be down (refused, or never set up): the
   * runner starts it there.
   */
  onDown?: () => AutoStartOutcome;
  /** Why every event goes straight to the spool without a post (the collector is hung). */
  spoolOnly?: string;
}

/**
 * Posts the events in order. After the first failure that says the collector is unavailable,
 * the rest go straight to the spool: waiting out the same timeout again would only slow the
 * agent down. The whole batch is bounded by twice `timeoutMs`.
 */
export async function deliver(
  items: readonly Delivery[],
  shimConfig: ShimConfig,
  options: DeliverOptions,
): Promise<DeliveryResult[]> {
  let config = shimConfig;
  const results: DeliveryResult[] = [];
  const deadline = Date.now() + 2 * options.timeoutMs;
  let down: string | null = options.spoolOnly ?? null;
  if (down !== null) note(`${down}; spooling`);
  for (const item of items) {
    const remaining = Math.min(options.timeoutMs, deadline - Date.now());
    if (down === null && remaining <= 0) down = "shim time budget spent";
    if (down === null) {
      const result = await postEvent(item.event, config, {
        query: item.query,
        timeoutMs: remaining,
      });
      if (result.status === "ok") {
        results.push({ event_id: item.event.event_id, outcome: "posted", context: result.context });
        continue;
      }
      if (result.status === "rejected") {
        note(`${result.message}; ${item.event.kind} event ${item.event.event_id} not recorded`);
        results.push({ event_id: item.event.event_id, outcome: "lost", context: "" });
        continue;
      }
      down = result.message;
      const started = result.down && options.onDown ? options.onDown() : null;
      if (started?.status === "started") {
        // A hook that asks for context waits, within its budget, for the collector it started:
        // the first session after a reboot then gets memory, not only the next prompt.
        const retry = item.query === "" ? null : await postWhenUp(item, config, { deadline });
        if (retry !== null) {
          note(`${down}; started it`);
          results.push({
            event_id: item.event.event_id,
            outcome: "posted",
            context: retry.context,
          });
          config = retry.config;
          down = null;
          continue;
        }
        note(`${down}; starting it in the background; spooling`);
      } else {
        note(`${down}; spooling`);
      }
    }
    // Secrets and <private> spans never touch disk, the spool included (the collector scrubs
    // again on ingest; scrubbing is idempotent). Loaded only on this rare path, off start-up.
    const { scrubEvent } = await import("@kiro-learn/core/privacy");
    const spooled = spoolEvent(scrubEvent(item.event), {
      spoolDir: config.spoolDir,
      maxBytes: config.spoolMaxBytes,
      query: item.query,
      warn: note,
    });
    results.push({
      event_id: item.event.event_id,
      outcome: spooled.spooled ? "spooled" : "lost",
      context: "",
    });
  }
  return results;
}
