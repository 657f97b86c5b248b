/**
 * Retrieval: the assembler that answers a prompt inside its budget and never throws, the
 * hybrid searcher it ranks with, and the session-start resume block.
 *
 * @module
 */
export * from "./assembler.ts";
export * from "./hybrid.ts";
export * from "./resume.ts";
export * from "./search.ts";
