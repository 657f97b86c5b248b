/**
 * Identifiers: ULIDs for events, `mr_`-prefixed ULIDs for memory records.
 *
 * One monotonic factory per process, so ids minted in the same millisecond still sort in
 * creation order (the queue and the viewer rely on that order).
 *
 * @module
 */
import { monotonicFactory } from "ulid";

/** Crockford base32 ULID: 26 characters, no I, L, O or U. */
export const ULID_PATTERN: RegExp = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** Memory record id: `mr_` followed by a ULID. */
export const RECORD_ID_PATTERN: RegExp = /^mr_[0-9A-HJKMNP-TV-Z]{26}$/;

/** Prefix of every memory record id. */
export const RECORD_ID_PREFIX = "mr_";

const nextUlid = monotonicFactory();

/** Returns a new ULID, monotonic within this process. */
export function newUlid(): string {
  return nextUlid();
}

/** Returns a new event id (a ULID). */
export function newEventId(): string {
  return nextUlid();
}

/** Returns a new memory record id (`mr_` + ULID). */
export function newRecordId(): string {
  return RECORD_ID_PREFIX + nextUlid();
}
