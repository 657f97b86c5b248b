// The live feed (server-sent events from `/v1/feed`) and the debounce pages use to reload on it.
import { api } from "./api.js";
import { FEED_TYPES } from "./enums.js";
import { feedUrl } from "./session.js";

/**
 * Subscribes to `/v1/feed`. EventSource reconnects by itself after network errors; a refused
 * request (session gone) closes it, and then a plain API call decides between reconnecting and
 * showing the how-to-open page.
 * @param {(type: string, message: any) => void} onMessage
 * @param {(state: "open" | "connecting" | "closed") => void} [onState]
 */
export function openFeed(onMessage, onState = () => {}) {
  /** @type {EventSource | null} */
  let source = null;
  const connect = () => {
    source = new EventSource(feedUrl());
    for (const type of FEED_TYPES) {
      source.addEventListener(type, (e) => {
        try {
          onMessage(type, JSON.parse(/** @type {MessageEvent} */ (e).data));
        } catch (error) {
          console.warn("bad feed message", error);
        }
      });
    }
    source.addEventListener("hello", () => onState("open"));
    source.onopen = () => onState("open");
    source.onerror = () => {
      if (source?.readyState === EventSource.CLOSED) {
        onState("closed");
        setTimeout(() => api("/healthz").then(connect, () => setTimeout(connect, 5000)), 3000);
      } else {
        onState("connecting");
      }
    };
  };
  connect();
  addEventListener("pagehide", () => source?.close());
}

/**
 * Calls `fn` once calls stop for `ms` (a burst of feed messages becomes one reload).
 * @template {(...args: any[]) => void} F
 * @param {F} fn
 * @param {number} ms
 * @returns {(...args: Parameters<F>) => void}
 */
export function debounce(fn, ms) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}
