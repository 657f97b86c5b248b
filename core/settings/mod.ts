/**
 * Settings: the data dir, settings.json (schema, defaults, validation) and secure writes.
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
  DEFAULTS,
  type EmbeddingBackend,
  type ExtractionStrategy,
  isLoopbackHost,
  type LogLevel,
  SETTINGS_SHAPE,
  type SettingsInput,
  SettingsSchema,
  type SettingsValues,
} from "./schema.ts";
export {
  ENV_OVERRIDES,
  loadSettings,
  type LoadSettingsOptions,
  type Settings,
  writeDefaultSettings,
} from "./settings.ts";
