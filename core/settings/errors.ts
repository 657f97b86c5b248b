/** One invalid setting, as reported inside a {@linkcode SettingsError}. */
export interface SettingsIssue {
  /** Dotted key path, e.g. `collector.port`. */
  path: string;
  /** The offending value as found (after env overrides). */
  value: unknown;
  /** Human description of what is allowed, e.g. `integer 1–65535`. */
  allowed: string;
}

/**
 * Raised for any settings problem a user has to fix: an invalid value, an unparsable
 * settings.json, an unusable data dir. The message always says what to do next.
 */
export class SettingsError extends Error {
  /** Every invalid key found (empty for file-level problems such as bad JSON). */
  readonly issues: readonly SettingsIssue[];

  /** Create an error with a ready-to-print message and the structured issues. */
  constructor(message: string, issues: readonly SettingsIssue[] = []) {
    super(message);
    this.name = "SettingsError";
    this.issues = issues;
  }
}
