/**
 * The local API bearer token: created once, 0600, in the data dir; read by every client.
 *
 * @module
 */
import { readToken } from "@kiro-learn/core/api/wire";
import { writeSecureFile } from "@kiro-learn/core/settings";

/** Reads the token, creating it when absent. */
export function ensureToken(path: string): string {
  const existing = readToken(path);
  if (existing) return existing;
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const token = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  // createNew: two processes starting at once must agree on one token.
  writeSecureFile(path, token + "\n", { createNew: true });
  const winner = readToken(path);
  if (!winner) throw new Error(`could not create the API token at ${path}`);
  return winner;
}

/** Compares two strings in time independent of where they differ. */
export function timingSafeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}
