/** Placeholder entry; filled in by the module's own issue. */
export {};
