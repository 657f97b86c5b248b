/**
 * The installer's one error type: every problem found while planning, reported together so the
 * user fixes them all in one go, and always before anything was written.
 *
 * @module
 */

/** A problem the user has to fix before kiro-learn can install, uninstall or apply a plan. */
export class InstallError extends Error {
  /** Each problem on its own, already phrased for the user. */
  readonly problems: readonly string[];

  /** Creates the error from one or more ready-to-print problems. */
  constructor(problems: string | readonly string[]) {
    const list = typeof problems === "string" ? [problems] : [...problems];
    super(
      list.length === 1
        ? `${list[0]}\nNothing was changed.`
        : `${list.length} problems:\n${list.map((p) => `- ${p}`).join("\n")}\nNothing was changed.`,
    );
    this.name = "InstallError";
    this.problems = list;
  }
}
