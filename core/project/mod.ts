/**
 * Project identity: cwd → project root, project id and namespace.
 *
 * @module
 */

export {
  buildNamespace,
  currentActor,
  type EnvLike,
  type GitRemote,
  legacyNamespaceFor,
  MAX_ACTOR_LENGTH,
  PROJECT_ID_GRAMMAR,
  PROJECT_ID_PATTERN,
  PROJECT_MARKERS,
  type ProjectIdentity,
  projectIdFromGitConfig,
  projectIdFromNamespace,
  projectIdFromRemote,
  projectIdFromRoot,
  REMOTE_PROJECT_ID_PREFIX,
  resolveProject,
  type ResolveProjectOptions,
  sanitizeActor,
} from "./identity.ts";
export { canonicalRecordId, COMMIT_FACT_RE, commitRecordId } from "./record_identity.ts";
export { sha256, sha256Hex } from "./sha256.ts";
