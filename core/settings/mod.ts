/**
 * Settings: the data dir, settings.json (one spec holding every key's type, default, range and
 * description; defaults, validation and types derived from it) and secure writes.
 *
 * @module
 */

export { SettingsError, type SettingsIssue } from "./errors.ts";
export {
  dataDir,
  type DataPaths,
  dataPaths,
  ensureDataDir,
  type EnvLike,
  SETTINGS_FILE,
  writeSecureFile,
  type WriteSecureFileOptions,
} from "./paths.ts";
export {
  AGENT_ENV_DEFAULT,
  AGENT_TIMEOUT_MIN_MS,
  allowedText,
  type BooleanSpec,
  type CommandSpec,
  DEFAULTS,
  defaultValues,
  type EmbeddingBackend,
  type EnumSpec,
  type ExtractionStrategy,
  type IntegerSpec,
  isLoopbackHost,
  type KeySpec,
  keySpec,
  type LogLevel,
  type LoopbackHostSpec,
  type NamesSpec,
  type NumberSpec,
  postgresHostPort,
  postgresUrlProblem,
  type PostgresUrlSpec,
  SETTINGS_SPEC,
  type SettingsInput,
  type SettingsSpec,
  type SettingsSpecShape,
  type SettingsValues,
  type ValueOf,
} from "./spec.ts";
export {
  checkValue,
  SettingsSchema,
  validateSettings,
  type ValidationIssue,
  type ValidationResult,
} from "./validate.ts";
export {
  ENV_OVERRIDES,
  loadSettings,
  type LoadSettingsOptions,
  ownerUid,
  type Settings,
  USER_PORT_SPAN,
  userDefaultPort,
  writeDefaultSettings,
} from "./settings.ts";
