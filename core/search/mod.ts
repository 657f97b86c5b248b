/**
 * Search: the query rewrite, the context formatter, vector math and rank fusion.
 *
 * @module
 */
export * from "./query_rewrite.ts";
export * from "./context_format.ts";
export * from "./vector.ts";
export * from "./fusion.ts";
