/**
 * The project-identity call: a client (the MCP server, the CLI) names the namespace it works in
 * and the project root it resolved, so the collector can move the project's older namespace
 * into it before the client reads (see the collector's ingest pipeline).
 *
 * @module
 */
import { z } from "zod";
import { NamespaceSchema } from "./event.ts";
import { MAX_PROJECT_PATH } from "./limits.ts";

/** Body of `POST /v1/projects/identity`. */
export const ProjectIdentityRequestSchema = z.object({
  namespace: NamespaceSchema,
  project_path: z.string().min(1).max(MAX_PROJECT_PATH),
}).strict();

/** A project-identity request. */
export type ProjectIdentityRequest = z.infer<typeof ProjectIdentityRequestSchema>;

/** Answer of `POST /v1/projects/identity`: the rows moved per kind, or null (nothing to move). */
export const ProjectIdentityResponseSchema = z.object({
  namespace: NamespaceSchema,
  moved: z.record(z.string(), z.number().int().nonnegative()).nullable(),
});

/** A project-identity answer. */
export type ProjectIdentityResponse = z.infer<typeof ProjectIdentityResponseSchema>;
