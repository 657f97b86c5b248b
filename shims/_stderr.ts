/**
 * Diagnostics for hook shims: one short line on stderr, prefixed `[kiro-learn]`.
 *
 * stdout is reserved for context the agent injects into the model's prompt, so every other
 * word a shim says goes here.
 *
 * @module
 */

const encoder = new TextEncoder();

/** Longest diagnostic line we print; agents show stderr to users, so keep it short. */
export const MAX_NOTE_CHARS = 300;

/** Writes `[kiro-learn] <message>` to stderr. Never throws (a closed stderr must not crash). */
export function note(message: string): void {
  const oneLine = message.replace(/\s+/g, " ").trim();
  const cut = oneLine.length > MAX_NOTE_CHARS
    ? oneLine.slice(0, MAX_NOTE_CHARS - 1) + "…"
    : oneLine;
  try {
    writeAllSync(Deno.stderr, encoder.encode(`[kiro-learn] ${cut}\n`));
  } catch {
    // Nowhere left to report to.
  }
}

/** Writes every byte of `data` to a sync writer (a single write may be partial on pipes). */
export function writeAllSync(writer: { writeSync(p: Uint8Array): number }, data: Uint8Array): void {
  let written = 0;
  while (written < data.length) written += writer.writeSync(data.subarray(written));
}
