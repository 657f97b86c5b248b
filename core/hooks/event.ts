/**
 * Turning a {@linkcode HookPlan} into events, the one way both a shim and the collector's hook
 * route do it: the body capped (scrubbed first when it is cut), the project and actor filed, and
 * ids derived from the hook firing when its launcher named one, so the same firing delivered
 * twice (the fast path timed out after the collector stored it, then the shim posted or spooled
 * it) is one event.
 *
 * @module
 */
import type { Event, EventBody, EventKind, Surface } from "@kiro-learn/core/schemas";
import type { SpoolQuery } from "@kiro-learn/core/spool";
import { derivedUlid, newEventId } from "@kiro-learn/core/ids";
import { sha256 } from "@kiro-learn/core/project";
import { MAX_EVENT_BODY_CHARS } from "@kiro-learn/core/schemas/limits";
import { VERSION } from "@kiro-learn/core/version";
import { type HookPlan, MAX_SESSION_ID } from "./plan.ts";
import { serializedBytes, truncateBody } from "./truncate.ts";

/** One hook firing as its launcher names it: the clock when it started, and its process. */
export interface HookFiring {
  /** Milliseconds since the epoch when the launcher started. */
  ms: number;
  /** The whole key (`<nanoseconds>-<pid>`), unique per firing on one machine. */
  key: string;
}

/** The argument that hands a shim its launcher's firing key. */
export const FIRING_ARG = "--firing=";

/**
 * The argument a hook's launcher adds when its fast path (the collector's Unix socket) did not
 * answer within its budget: the collector is hung, so the shim spools without posting.
 */
export const NO_WAIT_ARG = "--no-wait";

const FIRING_PATTERN = /^(\d{13,19})-(\d{1,10})$/;

/** A firing key (`<nanoseconds since the epoch>-<pid>`), or null when it is not one. */
export function parseFiring(text: string | null | undefined): HookFiring | null {
  const match = FIRING_PATTERN.exec(text ?? "");
  if (match === null) return null;
  // Nanoseconds exceed a double's precision; the millisecond prefix does not.
  const ms = match[1].length > 13 ? Number(match[1].slice(0, match[1].length - 6)) : 0;
  return ms > 0 ? { ms, key: match[0] } : null;
}

/** The firing key among a shim's arguments (`--firing=<key>`), or null. */
export function firingFromArgs(args: readonly string[]): HookFiring | null {
  const arg = args.find((a) => a.startsWith(FIRING_ARG));
  return arg === undefined ? null : parseFiring(arg.slice(FIRING_ARG.length));
}

/**
 * The id of a plan's `index`th event: derived from the firing (its time, and a hash of the
 * firing, surface, session, hook and index) when there is one, else a fresh ULID.
 */
export function hookEventId(
  plan: Pick<HookPlan, "surface" | "sessionId" | "hook">,
  options: { index: number; firing?: HookFiring | null },
): string {
  if (!options.firing) return newEventId();
  const seed = sha256(
    `kiro-learn hook event\n${options.firing.key}\n${plan.surface}\n${plan.sessionId}\n` +
      `${plan.hook}\n${options.index}`,
  );
  return derivedUlid(options.firing.ms, seed);
}

/**
 * A hook's body cap from `shim.maxBodyBytes`: never above what the event schema accepts. The
 * shim and the collector's hook route both cut with it, so a firing's two deliveries agree.
 */
export function hookBodyCap(maxBodyBytes: number): number {
  return Math.min(maxBodyBytes, MAX_EVENT_BODY_CHARS);
}

/** The project an event is filed under. */
export interface HookProject {
  /** The project root (`source.project_path`). */
  root: string;
  /** `/actor/<actor>/project/<id>/`. */
  namespace: string;
}

/** Context for {@linkcode hookEvent}. */
export interface HookEventOptions {
  /** The agent. */
  surface: Surface;
  /** Session id (cut to {@linkcode MAX_SESSION_ID} characters). */
  sessionId: string;
  /** The project. */
  project: HookProject;
  /** `actor_id`. */
  actor: string;
  /** `source.client_id`. */
  clientId: string;
  /** Body cap in UTF-8 bytes. */
  maxBodyBytes: number;
  /** The draft body's serialized size, when the caller has already measured it. */
  bodyBytes?: number;
  /** The event id (default: a fresh ULID). */
  eventId?: string;
  /** Clock. */
  now?: Date;
  /** Where a cut body is reported. */
  warn?: (message: string) => void;
}

/** Builds a complete, schema-valid event; a body over the cap is cut (and marked). */
export function hookEvent(
  draft: { kind: EventKind; body: EventBody },
  options: HookEventOptions,
): Event {
  const { body, truncated } = truncateBody(draft.body, options.maxBodyBytes, options.bodyBytes);
  if (truncated) options.warn?.(`${draft.kind} body over ${options.maxBodyBytes} bytes: truncated`);
  const source: Event["source"] = {
    surface: options.surface,
    version: VERSION,
    client_id: options.clientId,
  };
  if (options.project.root.length <= 2048) source.project_path = options.project.root;
  return {
    event_id: options.eventId ?? newEventId(),
    session_id: options.sessionId.slice(0, MAX_SESSION_ID),
    actor_id: options.actor,
    namespace: options.project.namespace,
    schema_version: 1,
    kind: draft.kind,
    body,
    valid_time: (options.now ?? new Date()).toISOString(),
    source,
  };
}

/** One event of a plan and the retrieval to ask for with it. */
export interface HookDelivery {
  /** The event. */
  event: Event;
  /** Retrieval to request. */
  query: SpoolQuery;
}

/** Context for {@linkcode planEvents}. */
export interface PlanEventsOptions {
  /** The project a working directory belongs to. */
  project: (cwd: string) => HookProject;
  /** `actor_id`. */
  actor: string;
  /** `source.client_id`. */
  clientId: string;
  /** Body cap in UTF-8 bytes. */
  maxBodyBytes: number;
  /** The firing, when the launcher named one (ids and the valid time are then derived from it). */
  firing?: HookFiring | null;
  /** Clock (default: the firing's, else the current time). */
  now?: Date;
  /** Where a cut body is reported. */
  warn?: (message: string) => void;
}

/** The events of a plan, in order. */
export async function planEvents(
  plan: HookPlan,
  options: PlanEventsOptions,
): Promise<HookDelivery[]> {
  // A body over the cap is cut: scrub it first, so a secret or a <private> span that straddles
  // the cut cannot survive as a fragment the collector's rules no longer recognise. (Rare: the
  // scrubber is loaded only then, off the hook's start-up.)
  // Each body is measured once: the same size decides the scrub and the cut.
  const sizes = plan.events.map((p) => serializedBytes(p.body));
  const scrub = sizes.some((size) => size > options.maxBodyBytes)
    ? (await import("@kiro-learn/core/privacy")).scrubEventBody
    : null;
  return plan.events.map((planned, index) => {
    const scrubbed = scrub !== null && sizes[index] > options.maxBodyBytes;
    return {
      event: hookEvent({
        kind: planned.kind,
        body: scrubbed ? scrub(planned.body) : planned.body,
      }, {
        surface: plan.surface,
        sessionId: plan.sessionId,
        project: options.project(planned.cwd ?? plan.cwd),
        actor: options.actor,
        clientId: options.clientId,
        maxBodyBytes: options.maxBodyBytes,
        // A scrubbed body is another body: it is measured again.
        bodyBytes: scrubbed ? undefined : sizes[index],
        eventId: hookEventId(plan, { index, firing: options.firing }),
        // When the hook fired, as its launcher read the clock: a background delivery may reach
        // the collector after a later hook's, and events are listed by their valid time.
        now: options.now ?? (options.firing ? new Date(options.firing.ms) : undefined),
        warn: options.warn,
      }),
      query: planned.query,
    };
  });
}
