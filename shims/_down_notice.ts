/**
 * Whether a session has already been told that its collector is down. A Claude Code session
 * asks for its start block with every prompt until one is answered, so without this the
 * collector-down line would be repeated to the agent (and cost its tokens) on every prompt. The
 * mark lives in the spool folder, the only place a shim may write; its name starts with a dot,
 * which the spool's drain and size count skip.
 *
 * @module
 */

/** The spool folder's file that holds the id of the last session told the collector is down. */
export const DOWN_NOTICE_FILE = ".down-notice";

/**
 * True the first time `sessionId` asks (and marks it), false for its later asks. Never throws:
 * when the mark cannot be read or written, the session is told again rather than never.
 */
export function firstDownNotice(spoolDir: string, sessionId: string): boolean {
  const path = `${spoolDir}/${DOWN_NOTICE_FILE}`;
  try {
    if (Deno.readTextFileSync(path) === sessionId) return false;
  } catch {
    // No mark yet (or an unreadable one): this session has not been told.
  }
  try {
    Deno.mkdirSync(spoolDir, { recursive: true });
    Deno.writeTextFileSync(path, sessionId);
  } catch {
    // Told now, and perhaps again at the next prompt: better than never.
  }
  return true;
}
