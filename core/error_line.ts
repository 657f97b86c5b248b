/**
 * The line of a failed command's output that says what went wrong. For a failed test run that is
 * the assertion (`AssertionError: expected 3 to equal 4`, Jest's `Expected: 4` / `Received: 3`,
 * `assert.equal` / `assert_eq!` failures), not the runner's summary (`FAILED | 1 failed`,
 * `Tests: 1 failed`, `error: Test failed`, `parses a leap day ... FAILED`). Shared by the shims
 * (the `error` of a failed tool use) and the heuristic extractor. No dependencies: shims load it.
 *
 * @module
 */

/** Longest line returned. */
export const MAX_ERROR_LINE_CHARS = 500;

/** Assertion failures, in the shapes the common runners print. */
const ASSERTION =
  /\bAssertion\w*Error\b|\bassert(?:ion)?\s+failed\b|\bassert(?:\.\w+|_\w+!?)\s*\(|\bexpected\b.+\b(?:to|but|got|received|actual|equal)\b|^expected:|^received:|\bleft\s*==\s*right\b|\bpanicked at\b|^E\s{2,}\w/i;

/** An error with its message (`RangeError: bad day: 29`, `error[E0308]: …`, `TypeError …`). */
const NAMED_ERROR =
  /\b\w*(?:Error|Exception)\b\s*(?:\[\w+\])?:\s*\S|^error(?:\[\w+\])?:\s*\S|\bTraceback\b|\bfatal:/i;

/** Any mention of a problem. */
const PROBLEM =
  /\b(?:error|errors|fail|failed|failure|fails|exception|panic|panicked|assert\w*|cannot|denied|not found|traceback|fatal)\b/i;

/** Summary lines of test runners and shells: they say that it failed, not why. */
const SUMMARY =
  /^(?:FAILED\b|FAIL\b|ok\b|test result:|tests?:|test suites?:|snapshots?:|time:|ran all test|\d+ (?:passed|failed|tests?)|error: test failed|# (?:fail|pass|tests)|failures:$|exit (?:code|status):?\s*-?\d+$)|\.\.\. FAILED$|\b\d+ failed\b.*\b\d+ passed\b|\b\d+ passed\b.*\b\d+ failed\b/i;

/**
 * The most telling line of `text`: an assertion line (a Jest `Expected:` line joined with the
 * `Received:` line after it), else a named error, else the first line mentioning a problem that
 * is not a runner summary, else such a summary, else the first non-empty line; at most
 * {@linkcode MAX_ERROR_LINE_CHARS} characters, `""` for empty text.
 */
export function tellingErrorLine(text: string): string {
  const lines = text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== "");
  const cut = (line: string) =>
    line.length > MAX_ERROR_LINE_CHARS ? line.slice(0, MAX_ERROR_LINE_CHARS) : line;
  const assertion = lines.findIndex((l) => ASSERTION.test(l) && !SUMMARY.test(l));
  if (assertion >= 0) {
    const line = lines[assertion];
    const next = lines[assertion + 1];
    if (/^expected:/i.test(line) && next !== undefined && /^received:/i.test(next)) {
      return cut(`${line} ${next}`);
    }
    return cut(line);
  }
  const named = lines.find((l) => NAMED_ERROR.test(l) && !SUMMARY.test(l));
  if (named !== undefined) return cut(named);
  const problem = lines.find((l) => PROBLEM.test(l) && !SUMMARY.test(l));
  if (problem !== undefined) return cut(problem);
  return cut(lines.find((l) => PROBLEM.test(l)) ?? lines[0] ?? "");
}
