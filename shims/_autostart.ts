/**
 * Starting a collector that is down, from a hook: the hook runs the starter the installer wrote
 * (`<dataDir>/bin/start-collector`, see core/launch's `starter.ts`), detached, and does not wait
 * for it. The event that found the collector down is spooled as always; the started collector
 * drains the spool, and the next prompt gets memory. Two hooks that start it at once start one
 * collector: the second daemon cannot bind the port and exits.
 *
 * @module
 */

/** What an attempt to start the collector did. */
export type AutoStartOutcome =
  | { status: "started" }
  | { status: "missing"; message: string }
  | { status: "failed"; message: string };

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/** Runs the starter at `starter` detached and returns at once. Never throws. */
export function startCollectorDetached(starter: string): AutoStartOutcome {
  if (!isFile(starter)) {
    return {
      status: "missing",
      message: `no collector starter at ${starter} (kiro-learn install writes it)`,
    };
  }
  try {
    const child = new Deno.Command(starter, {
      stdin: "null",
      stdout: "null",
      stderr: "null",
      detached: true,
    }).spawn();
    child.unref();
    return { status: "started" };
  } catch (error) {
    return {
      status: "failed",
      message: `could not run ${starter}: ${error instanceof Error ? error.message : error}`,
    };
  }
}
