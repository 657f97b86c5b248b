/**
 * The collector daemon: {@linkcode startCollector} runs it in this process (the entry `main.ts`
 * does that under the narrow permissions of `permissions/`).
 *
 * @module
 */
export * from "./start.ts";
