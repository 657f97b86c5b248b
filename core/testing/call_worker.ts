/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />
/**
 * The worker side of `callEachInWorker` (see `hang_guard.ts`): imports the named function once
 * and answers each posted input with its result, or with the error it threw.
 *
 * @module
 */
import type { WorkerCall, WorkerReply } from "./hang_guard.ts";

const loaded = new Map<string, (input: unknown) => unknown>();

self.onmessage = async (event: MessageEvent<WorkerCall>) => {
  const { module, exportName, input } = event.data;
  let reply: WorkerReply;
  try {
    const key = `${module}#${exportName}`;
    let fn = loaded.get(key);
    if (fn === undefined) {
      const exported = (await import(module))[exportName];
      if (typeof exported !== "function") throw new Error(`${key} is not a function`);
      fn = exported as (input: unknown) => unknown;
      loaded.set(key, fn);
    }
    reply = { ok: true, value: await fn(input) };
  } catch (error) {
    reply = {
      ok: false,
      error: error instanceof Error ? error.stack ?? error.message : String(error),
    };
  }
  self.postMessage(reply);
};
