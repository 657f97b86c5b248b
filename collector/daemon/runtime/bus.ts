/**
 * The collector's in-process event bus: what happened, for the viewer's live feed.
 *
 * Publishing never blocks or throws into the data path: a slow or failing subscriber only
 * hurts itself.
 *
 * @module
 */

/** Everything the live feed can show. */
export type BusMessage =
  | {
    type: "event";
    event_id: string;
    namespace: string;
    kind: string;
    surface: string;
    preview: string;
    at: string;
  }
  | { type: "run"; run: Record<string, unknown> }
  | {
    type: "retrieval";
    namespace: string;
    records: string[];
    latency_ms: number;
    at: string;
  }
  | { type: "record_saved"; record_id: string; namespace: string; title: string }
  | { type: "records_deleted"; record_ids: string[] };

/** A subscriber. */
export type BusListener = (message: BusMessage) => void;

/** Fan-out of bus messages to subscribers. */
export class EventBus {
  #listeners = new Set<BusListener>();

  /** Sends `message` to every subscriber; errors in subscribers are swallowed. */
  publish(message: BusMessage): void {
    for (const listener of this.#listeners) {
      try {
        listener(message);
      } catch {
        // A broken subscriber must not affect ingest.
      }
    }
  }

  /** Subscribes; returns the function that unsubscribes. */
  subscribe(listener: BusListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Number of subscribers (open live feeds). */
  get size(): number {
    return this.#listeners.size;
  }
}
