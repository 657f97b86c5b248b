/**
 * Search: code-aware text, the query rewrite, the reranker, the context formatter, vector math
 * and rank fusion.
 *
 * @module
 */
export * from "./code_text.ts";
export * from "./query_rewrite.ts";
export * from "./rerank.ts";
export * from "./context_format.ts";
export * from "./vector.ts";
export * from "./fusion.ts";
export * from "./term_space.ts";
export * from "./record_space.ts";
