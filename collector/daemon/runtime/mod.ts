/**
 * What every part of the daemon uses: the in-process event bus, the circuit breaker, the logger,
 * latency recorders and the bearer token.
 *
 * @module
 */
export * from "./breaker.ts";
export * from "./bus.ts";
export * from "./latency.ts";
export * from "./logger.ts";
export * from "./token.ts";
