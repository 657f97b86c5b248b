/**
 * The extraction queue entry: the projection of a stored event that extraction reads.
 *
 * Like kiro-learn's BufferEntry, plus the queue sequence number (the watermark unit) and the
 * provenance list, which is one event id for a captured event and every replaced id for a
 * compacted entry (so provenance always points at real events).
 *
 * @module
 */
import { z } from "zod";
import { EVENT_KINDS, EventBodySchema, NamespaceSchema, SURFACES, UlidSchema } from "./event.ts";

/** A queued event waiting for extraction. */
export const QueueEntrySchema = z.object({
  seq: z.number().int().positive(),
  project_id: z.string().min(1),
  namespace: NamespaceSchema,
  kind: z.enum(EVENT_KINDS),
  body: EventBodySchema,
  timestamp: z.iso.datetime({ offset: true }),
  surface: z.enum(SURFACES),
  source_event_ids: z.array(UlidSchema).min(1),
  compacted: z.boolean(),
  bytes: z.number().int().nonnegative(),
});

/** A queue entry. */
export type QueueEntry = z.infer<typeof QueueEntrySchema>;
