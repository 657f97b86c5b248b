/**
 * Command-line pieces the real-set benchmarks share.
 *
 * @module
 */

/**
 * The whole number of at least 1 after `flag` (`--records=`) in `arg`; throws a message naming
 * the argument otherwise.
 */
export function countArg(arg: string, flag: string): number {
  const n = Number(arg.slice(flag.length));
  if (!Number.isInteger(n) || n < 1) {
    throw new Error(`${arg}: ${flag.slice(2, -1)} must be a whole number of at least 1`);
  }
  return n;
}
