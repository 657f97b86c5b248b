/**
 * Bounded waiting: shutdown paths and probes wait for work, but never for ever.
 *
 * @module
 */

/**
 * Resolves `true` when `work` settles (fulfils or rejects) within `ms`, `false` otherwise. The
 * timer is cleared either way, so a caller never keeps the process alive for the full `ms`.
 */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const settled = work.then(() => true, () => true);
  const late = new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(false), ms));
  try {
    return await Promise.race([settled, late]);
  } finally {
    clearTimeout(timer);
  }
}
