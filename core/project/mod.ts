/**
 * Project identity: cwd → project root, project id and namespace.
 *
 * @module
 */

export {
  buildNamespace,
  currentActor,
  type EnvLike,
  MAX_ACTOR_LENGTH,
  PROJECT_MARKERS,
  type ProjectIdentity,
  projectIdFromNamespace,
  projectIdFromRoot,
  resolveProject,
  type ResolveProjectOptions,
  sanitizeActor,
} from "./identity.ts";
export { sha256, sha256Hex } from "./sha256.ts";
