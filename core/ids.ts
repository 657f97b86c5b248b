/**
 * Identifiers: ULIDs for events, `mr_`-prefixed ULIDs for memory records.
 *
 * A ULID is 48 bits of Unix time in milliseconds followed by 80 random bits, written as 26
 * Crockford base32 characters (10 for the time, 16 for the randomness), so ids sort by
 * creation time as plain strings. One monotonic generator per process: an id minted in the
 * same millisecond as the previous one (or while the clock stands still or steps back) keeps
 * the previous time and increments the previous random part by one, so ids minted in one
 * process always sort in creation order (the queue and the viewer rely on that order).
 *
 * Hand-written rather than the `ulid` npm package: a shim loads this module on every hook,
 * and resolving an npm package at start-up cost about 45 ms per process.
 *
 * @module
 */

/**
 * A ULID as the spec defines it, as a regular-expression source: 26 Crockford base32
 * characters (no I, L, O or U), the first 0–7, since 10 characters hold 50 bits and the time
 * has 48 (`7ZZZZZZZZZZZZZZZZZZZZZZZZZ` is the largest ULID). Uppercase, as ids are minted.
 */
export const ULID_SOURCE = "[0-7][0-9A-HJKMNP-TV-Z]{25}";

/** A ULID, to the spec (see {@linkcode ULID_SOURCE}). */
export const ULID_PATTERN: RegExp = new RegExp(`^${ULID_SOURCE}$`);

/** Memory record id: `mr_` followed by a ULID. */
export const RECORD_ID_PATTERN: RegExp = new RegExp(`^mr_${ULID_SOURCE}$`);

/** What a valid ULID looks like, for error messages. */
export const ULID_RULE =
  "a ULID: 26 characters of Crockford base32 (0-9 and A-Z without I, L, O and U, uppercase), " +
  "the first one 0-7";

/** Prefix of every memory record id. */
export const RECORD_ID_PREFIX = "mr_";

/** The Crockford base32 alphabet, in value order. */
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** Largest time a ULID can hold: 2^48 - 1 ms (year 10889). */
export const ULID_MAX_TIME = 2 ** 48 - 1;

const TIME_CHARS = 10;
const RANDOM_CHARS = 16;

/** Clock and randomness of a {@linkcode createUlidGenerator}; both injectable for tests. */
export interface UlidGeneratorOptions {
  /** Milliseconds since the epoch (default `Date.now`). */
  now?: () => number;
  /** Fills a byte array with random bytes (default `crypto.getRandomValues`). */
  random?: (bytes: Uint8Array) => void;
}

/**
 * A monotonic ULID generator: each call returns an id greater than the previous one from the
 * same generator. Throws if 2^80 ids are asked for within one millisecond (the random part
 * would overflow), as the ULID spec requires.
 */
export function createUlidGenerator(options: UlidGeneratorOptions = {}): () => string {
  const now = options.now ?? Date.now;
  const fill = options.random ?? ((bytes: Uint8Array) => crypto.getRandomValues(bytes));
  const digits = new Uint8Array(RANDOM_CHARS);
  let lastTime = -1;
  let timePart = "";
  return () => {
    const time = now();
    if (!Number.isInteger(time) || time < 0 || time > ULID_MAX_TIME) {
      throw new RangeError(`ULID time must be an integer 0–${ULID_MAX_TIME}, got ${time}`);
    }
    if (time > lastTime) {
      lastTime = time;
      timePart = encodeTime(time);
      fill(digits);
      // 256 is a multiple of 32, so masking keeps every base32 digit uniform.
      for (let i = 0; i < RANDOM_CHARS; i++) digits[i] &= 31;
    } else {
      increment(digits);
    }
    let out = timePart;
    for (let i = 0; i < RANDOM_CHARS; i++) out += ALPHABET[digits[i]];
    return out;
  };
}

/** The millisecond timestamp a ULID (or a `mr_` record id) carries. */
export function ulidTime(id: string): number {
  const ulid = id.startsWith(RECORD_ID_PREFIX) ? id.slice(RECORD_ID_PREFIX.length) : id;
  if (!ULID_PATTERN.test(ulid)) throw new TypeError(`not a ULID: ${JSON.stringify(id)}`);
  let time = 0;
  for (let i = 0; i < TIME_CHARS; i++) time = time * 32 + ALPHABET.indexOf(ulid[i]);
  if (time > ULID_MAX_TIME) throw new RangeError(`ULID time out of range: ${ulid}`);
  return time;
}

function encodeTime(time: number): string {
  let out = "";
  for (let i = 0; i < TIME_CHARS; i++) {
    out = ALPHABET[time % 32] + out;
    time = Math.floor(time / 32);
  }
  return out;
}

/** Adds one to a big-endian base32 number held one digit per byte; leaves it as is on overflow. */
function increment(digits: Uint8Array): void {
  let i = digits.length - 1;
  while (i >= 0 && digits[i] === 31) i--;
  if (i < 0) throw new RangeError("ULID random part overflowed within one millisecond");
  digits[i]++;
  digits.fill(0, i + 1);
}

const nextUlid = createUlidGenerator();

/** Returns a new ULID, monotonic within this process. */
export function newUlid(): string {
  return nextUlid();
}

/** Returns a new event id (a ULID). */
export function newEventId(): string {
  return nextUlid();
}

/**
 * A ULID derived, not drawn: `time` (ms) and the first 10 bytes of `seed` (a hash of what the id
 * stands for), so importing the same thing twice gives the same id and ids still sort by time.
 */
export function derivedUlid(time: number, seed: Uint8Array): string {
  if (seed.length < 10) throw new RangeError("a derived ULID needs at least 10 bytes of seed");
  const clamped = Math.min(Math.max(0, Math.floor(time)), ULID_MAX_TIME);
  let bits = 0n;
  for (let i = 0; i < 10; i++) bits = (bits << 8n) | BigInt(seed[i]);
  let random = "";
  for (let i = 0; i < RANDOM_CHARS; i++) {
    random = ALPHABET[Number(bits & 31n)] + random;
    bits >>= 5n;
  }
  return encodeTime(clamped) + random;
}

/** Returns a new memory record id (`mr_` + ULID). */
export function newRecordId(): string {
  return RECORD_ID_PREFIX + nextUlid();
}
