/**
 * How an import counts the collector's answers to its saves, the same for every source.
 *
 * @module
 */

/** What the saves of one kind of row came to. */
export interface SaveCounts {
  /** New in this collector. */
  added: number;
  /** Already there (an earlier import, or the same id). */
  present: number;
  /** Forgotten here since an earlier import: not brought back. */
  forgotten: number;
  /** Refused by the collector, with the reason. */
  rejected: { id: string; reason: string }[];
}

/** Empty counts. */
export function emptyCounts(): SaveCounts {
  return { added: 0, present: 0, forgotten: 0, rejected: [] };
}

/**
 * Counts one save's answer: 200 added (or already there when the collector says
 * `stored: false`, as an event ingest does), 409 already there, 410 forgotten, anything else
 * refused with the status and the collector's reason.
 */
export function tally(
  counts: SaveCounts,
  res: { status: number; body: unknown },
  options: { id: string },
): void {
  const body = res.body as { stored?: boolean; error?: string; details?: unknown } | null;
  if (res.status === 200) body?.stored === false ? counts.present++ : counts.added++;
  else if (res.status === 409) counts.present++;
  else if (res.status === 410) counts.forgotten++;
  else {
    counts.rejected.push({
      id: options.id,
      reason: `${res.status} ${body?.error ?? ""} ${JSON.stringify(body?.details ?? "")}`.trim(),
    });
  }
}
