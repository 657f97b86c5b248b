/**
 * Secret redaction: finds credentials in free text and replaces the secret part with a
 * `[REDACTED:<kind>]` marker, leaving everything around it byte-identical.
 *
 * Two families of rules run in a fixed order:
 * 1. Shape rules, for secrets recognisable on their own (PEM private keys, JWTs, vendor tokens with
 *    a fixed prefix, `Bearer` credentials, passwords in URLs). The most specific shapes run first
 *    so a token gets its most precise kind (an `sk-ant-` key is `anthropic_key`, not `openai_key`).
 * 2. Assignment rules, for `key=value`, `key: value`, `"key": "value"` (also `:=`, `=>`, and
 *    backslash-escaped JSON quotes) whose key name looks secret. They run last and skip a value that
 *    is already a single marker, which keeps the kind chosen by a shape rule and makes redaction
 *    idempotent.
 *
 * Every pattern is linear-time: character classes next to each other never overlap (so there is
 * exactly one way to split a match), candidate starts are pinned with a look-behind on the token
 * alphabet, and key-name heuristics run in code on the matched key rather than in the pattern.
 *
 * @module
 */
import rulesData from "./data/secret_rules.json" with { type: "json" };

/** The kinds of the rules written in code (the data rules add their own). */
const CODE_KINDS = [
  "private_key",
  "jwt",
  "anthropic_key",
  "openai_key",
  "github_token",
  "slack_token",
  "stripe_key",
  "google_api_key",
  "aws_access_key_id",
  "aws_secret_access_key",
  "bearer_token",
  "url_password",
  "password",
  "secret",
] as const;

/** A kind of secret, as named in its `[REDACTED:<kind>]` marker (`github_token`, `password`…). */
export type SecretKind = string;

/** Every kind that can appear in a `[REDACTED:<kind>]` marker. */
export const SECRET_KINDS: readonly SecretKind[] = [
  ...new Set([...CODE_KINDS, ...rulesData.rules.map((r) => r.kind)]),
];

/** Returns the marker that stands in for a redacted secret of the given kind. */
export function redactionMarker(kind: SecretKind): string {
  return `[REDACTED:${kind}]`;
}

// Also accepts the bare `[REDACTED]` of the `<private>` scrub, which runs first in `scrubText`.
const MARKER_ONLY_RE = /^\[REDACTED(?::[a-z_]+)?\]$/;

// ---------------------------------------------------------------------------------------------
// Shape rules

const PEM_BEGIN_RE = /-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----/g;
const PEM_END_RE = /-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----/g;

// A lazy `[\s\S]*?` body would work too, but two anchored searches avoid any dependence on the
// engine's backtracking stack for a megabyte-long unterminated key.
function redactPemBlocks(text: string): string {
  if (!text.includes("-----BEGIN")) return text;
  const begin = new RegExp(PEM_BEGIN_RE);
  const end = new RegExp(PEM_END_RE);
  let out = "";
  let cursor = 0;
  for (let m = begin.exec(text); m !== null; m = begin.exec(text)) {
    end.lastIndex = begin.lastIndex;
    const close = end.exec(text);
    out += text.slice(cursor, m.index) + redactionMarker("private_key");
    // An unterminated block is redacted to the end: the rest of the key is still key material.
    cursor = close === null ? text.length : end.lastIndex;
    if (close === null) break;
    begin.lastIndex = cursor;
  }
  return cursor === 0 ? text : out + text.slice(cursor);
}

interface ShapeRule {
  kind: SecretKind;
  hint: string;
  re: RegExp;
}

// The rules live in `data/secret_rules.json` (so the npm-free hooks load the very same set). The
// look-behind stops a rule from starting in the middle of a longer identifier ("task-..." is not
// an `sk-` key); the greedy tails consume the whole token so no fragment survives.
const SHAPE_RULES: readonly ShapeRule[] = rulesData.rules.map((rule) => ({
  kind: rule.kind,
  hint: rule.hint,
  re: new RegExp(`(?<![A-Za-z0-9_-])${rule.pattern}`, "g"),
}));

const SHAPE_HINT_RE = new RegExp(
  [...new Set(SHAPE_RULES.map((r) => r.hint))]
    .map((h) => h.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("|"),
);

const BEARER_RE = /(?<![A-Za-z0-9_-])(Bearer[ \t]+)([A-Za-z0-9._~+/-]+=*)/gi;

// "Bearer" is also an English word, so a short letters-only follower ("the Bearer authentication
// scheme") is prose; real credentials are long or contain digits.
function looksLikeBearerCredential(token: string): boolean {
  return token.length >= 16 || (token.length >= 8 && /[0-9]/.test(token));
}

function redactBearer(text: string): string {
  return text.replace(
    BEARER_RE,
    (match, prefix: string, token: string) =>
      looksLikeBearerCredential(token) ? prefix + redactionMarker("bearer_token") : match,
  );
}

// scheme://user:PASSWORD@host. The user part excludes ':' and the password excludes '@', so the
// split is unique; the scheme start is pinned by the look-behind. The user part also excludes
// brackets (never legal in a URL's user info), so the colon inside an earlier rule's
// `[REDACTED:kind]` marker is never taken for the user/password separator: that made a second
// pass change the first's output.
const URL_PASSWORD_RE =
  /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]{0,30}:\/\/[^\s:/?#@[\]]*:)([^\s/?#@]+)@/g;

function redactUrlPasswords(text: string): string {
  if (!text.includes("://")) return text;
  return text.replace(
    URL_PASSWORD_RE,
    (match, head: string, password: string) =>
      MARKER_ONLY_RE.test(password) ? match : `${head}${redactionMarker("url_password")}@`,
  );
}

// ---------------------------------------------------------------------------------------------
// Command-line rules: secrets passed as arguments

// `--password hunter2`, `--token=abc`, `--client-secret x`: a long flag whose name is secret, then
// its value (after `=` or spaces). A value starting with `-` is the next flag, not a secret.
const LONG_FLAG_RE = /(?<![A-Za-z0-9_-])--([A-Za-z][A-Za-z0-9-]{1,60})(=|[ \t]+)(?=[^\s=:-])/g;

// Short flags that take a password in common tools: `mysql -pSECRET` (attached), `sshpass -p x`,
// `docker login -p x`, `curl -u user:pass` (only the part after the colon).
const SHORT_PASSWORD_RE =
  /(?<![A-Za-z0-9_-])(mysql|mysqldump|mariadb|mysqladmin|sshpass|docker(?:[ \t]+login)?|podman[ \t]+login|helm[ \t]+registry[ \t]+login)\b([^\n|;&]{0,200}?[ \t])-p(?:[ \t]+|(?=[^\s-]))(?=[^\s-])/g;
const CURL_USER_RE = /(?<![A-Za-z0-9_-])(-u|--user)([ \t]+|=)([^\s:'"]{1,100}):(?=[^\s'"@])/g;

// `aws configure set aws_secret_access_key VALUE`, `git config --global x.token VALUE`,
// `heroku config:set KEY VALUE`: a secret-looking name, a space, the value.
const SET_COMMAND_RE =
  /(?<![A-Za-z0-9_-])(configure[ \t]+set|config(?::set)?(?:[ \t]+--(?:global|local|system))?|secrets?[ \t]+set|set-secret)[ \t]+([A-Za-z0-9_.-]{2,128})[ \t]+(?=[^\s=-])/g;

const BARE_VALUE_RE = /"((?:[^"\\\r\n]|\\.)*)"?|'((?:[^'\\\r\n]|\\.)*)'?|([^\s"'`;&|]+)/y;

function redactValueAt(
  text: string,
  at: number,
  kind: SecretKind,
): { start: number; end: number } | null {
  BARE_VALUE_RE.lastIndex = at;
  const v = BARE_VALUE_RE.exec(text);
  if (v === null) return null;
  const quoted = v[3] === undefined;
  const content = v[1] ?? v[2] ?? v[3];
  if (!isRedactableValue(content, kind, quoted ? "quoted" : "bare")) return null;
  const start = quoted ? at + 1 : at;
  return { start, end: start + content.length };
}

function redactCommandLines(text: string): string {
  if (!/-[A-Za-z-]|config|secret/i.test(text)) return text;
  const spans: { start: number; end: number; kind: SecretKind }[] = [];
  for (const m of text.matchAll(LONG_FLAG_RE)) {
    const kind = secretKindForKey(m[1]);
    if (kind === undefined) continue;
    const span = redactValueAt(text, m.index + m[0].length, kind);
    if (span) spans.push({ ...span, kind });
  }
  for (const m of text.matchAll(SHORT_PASSWORD_RE)) {
    const span = redactValueAt(text, m.index + m[0].length, "password");
    if (span) spans.push({ ...span, kind: "password" });
  }
  for (const m of text.matchAll(CURL_USER_RE)) {
    const span = redactValueAt(text, m.index + m[0].length, "password");
    if (span) spans.push({ ...span, kind: "password" });
  }
  for (const m of text.matchAll(SET_COMMAND_RE)) {
    const kind = secretKindForKey(m[2]);
    if (kind === undefined) continue;
    const span = redactValueAt(text, m.index + m[0].length, kind);
    if (span) spans.push({ ...span, kind });
  }
  if (spans.length === 0) return text;
  spans.sort((a, b) => a.start - b.start);
  let out = "";
  let cursor = 0;
  for (const span of spans) {
    if (span.start < cursor) continue; // overlapping matches: the first one wins
    out += text.slice(cursor, span.start) + redactionMarker(span.kind);
    cursor = span.end;
  }
  return out + text.slice(cursor);
}

// ---------------------------------------------------------------------------------------------
// Assignment rules

// Only the key and separator are matched here; the value is parsed separately so that a key that
// turns out not to be secret consumes nothing, and an assignment inside its value is still seen.
const KEY_SEP_RE = /(?<![A-Za-z0-9_.-])([A-Za-z0-9_.-]+)(\\?["']?[ \t]*(?::=|=>|:|=(?!=))[ \t]*)/g;

// Alternatives: backslash-escaped quotes (JSON inside a JSON string), double quotes, single
// quotes, then a bare value. A missing closing quote redacts to the end of the line rather than
// leaking the value.
const VALUE_RE =
  /\\"((?:[^"\\\r\n]|\\[^"\r\n])*)(?:\\")?|"((?:[^"\\\r\n]|\\.)*)"?|'((?:[^'\\\r\n]|\\.)*)'?|([^\s"'`,;&\\]+)/y;

// `Authorization: Bearer x`: the scheme is kept, only the credential after it is redacted.
const AUTH_SCHEME_RE = /(?:Bearer|Basic|Token|Digest)[ \t]+(?=[^\s"'`,;&\\])/iy;

// A "value" that starts with a secret key and a separator is really the next assignment: in
// `token= password=x` the empty `token=` must not swallow `password` and hide what follows it.
const KEY_AHEAD_RE = /\\?["']?([A-Za-z0-9_.-]+)\\?["']?[ \t]*(?::=|=>|[:=])/y;

// `token = getToken(...)` is code, not a secret. Checked before the value is parsed, and without
// consuming it, so arguments such as `connect(password=x)` are still scanned.
const CALL_AHEAD_RE = /[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*\(/y;

// References to where a secret lives are not the secret: `${DB_PASSWORD}`, `${{ secrets.X }}`,
// `$GITHUB_TOKEN` (when it is the whole value), `%API_KEY%`, `process.env.X`, `os.environ[...]`.
const REFERENCE_AHEAD_RE =
  /\$\{|\$[A-Z_][A-Z0-9_]*(?![^\s"'`,;&\\])|%[A-Z_][A-Z0-9_]*%|(?:process\.env|os\.environ|Deno\.env|import\.meta\.env)\b/y;

const MAX_KEY_LENGTH = 128;

const KEY_PREFIXES_FOR_KEY = new Set([
  "api",
  "access",
  "secret",
  "private",
  "signing",
  "encryption",
  "master",
  "auth",
  "app",
  "account",
]);

const COMPOUND_KEY_NAMES = new Set([
  "apikey",
  "accesskey",
  "secretkey",
  "privatekey",
  "signingkey",
  "masterkey",
  "authorization",
]);

// Shell variables that hold the working directory, not a password.
const NOT_SECRET_KEYS = new Set(["PWD", "OLDPWD"]);

// Every secret key contains one of these; checking first keeps the common case (`a: b` in prose
// and code) from paying for the key split.
const SECRET_KEY_HINT_RE = /pass|pwd|token|secret|auth|credential|key/i;

function keySegments(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((segment) => segment.length > 0);
}

/**
 * Classifies a key name: returns the marker kind for a key whose value should be redacted
 * (`DB_PASSWORD` → `"password"`, `githubToken` → `"secret"`, `aws_secret_access_key` →
 * `"aws_secret_access_key"`), or `undefined` for an ordinary key.
 *
 * The decision is made on the last word of the key (split on `_ - .`, spaces and camelCase), so
 * `token_count`, `max_tokens`, `author` and `password_hash` are ordinary while `x-api-key`,
 * `client_secret` and `Authorization` are secret.
 */
export function secretKindForKey(key: string): SecretKind | undefined {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || NOT_SECRET_KEYS.has(key)) return undefined;
  if (!SECRET_KEY_HINT_RE.test(key)) return undefined;
  const segments = keySegments(key);
  const last = segments.at(-1);
  if (last === undefined) return undefined;
  const previous = segments.at(-2);
  if (
    last.endsWith("password") || last.endsWith("passwd") || last === "pwd" ||
    last === "passphrase" || last === "pass"
  ) {
    return "password";
  }
  // Rails' `SECRET_KEY_BASE` and its kin: a secret key whatever word follows.
  if (segments.join("_").includes("secret_key") && !segments.includes("aws")) return "secret";
  // A service-account JSON's `private_key_id` names the key that signs with it.
  if (last === "id" && previous === "key" && segments.at(-3) === "private") return "secret";
  const secret = last.endsWith("token") || last.endsWith("secret") || last.endsWith("auth") ||
    last.endsWith("credential") || last.endsWith("credentials") || COMPOUND_KEY_NAMES.has(last) ||
    (last === "key" && previous !== undefined && KEY_PREFIXES_FOR_KEY.has(previous));
  if (!secret) return undefined;
  const joined = segments.join("_");
  if (
    joined.includes("secret_access_key") ||
    (segments.includes("aws") && segments.some((segment) => segment.includes("secret")))
  ) {
    return "aws_secret_access_key";
  }
  return "secret";
}

const NON_SECRET_WORD_RE =
  /^(?:true|false|null|nil|none|undefined|string|number|boolean|bool|str|int|any|unknown)$/i;
const NUMBER_RE = /^-?[0-9]+(?:\.[0-9]+)?$|^0x[0-9a-fA-F]{1,16}$/;

// `--private-key=/etc/ssl/key.pem`, `token_file: ./secrets/token`: where a secret is kept, not the
// secret itself.
const PATH_VALUE_RE =
  /^(?:(?:~|\.{1,2})\/|\/(?:etc|home|var|usr|tmp|opt|run|srv|mnt|root|Users|data)\/)[\w.@+\/-]*$|^[\w.@+\/-]*\/[\w.@+-]+\.(?:pem|key|crt|cer|json|txt|p12|pfx|jks|gpg|asc|env)$/;

// How a value was written: bare (`k=v`), quoted (`k="v"`, or a JSON string), or after an HTTP auth
// scheme (`Authorization: Token v`), where it is a credential whatever it looks like.
type ValueStyle = "bare" | "quoted" | "scheme";

// Values that are not secrets even under a secret-looking key: flags, nulls, type annotations
// (`password: string`) and counts (`token: 2000`).
function isRedactableValue(value: string, kind: SecretKind, style: ValueStyle): boolean {
  if (value.length === 0 || MARKER_ONLY_RE.test(value)) return false;
  if (style === "scheme") return true;
  if (NON_SECRET_WORD_RE.test(value) || PATH_VALUE_RE.test(value)) return false;
  return kind === "password" || !NUMBER_RE.test(value);
}

/**
 * Redacts a value that is known to sit under `key` (an object key in a JSON body, say), applying
 * the same key-name and value rules as the `key=value` text rule. Returns `value` itself when the
 * key is not secret or the value is not worth hiding (empty, `true`/`null`, a marker already).
 */
export function redactKeyedValue(key: string, value: string): string {
  const kind = secretKindForKey(key);
  if (kind === undefined || !isRedactableValue(value, kind, "quoted")) return value;
  return redactionMarker(kind);
}

function stickyMatch(re: RegExp, text: string, at: number): RegExpExecArray | null {
  re.lastIndex = at;
  return re.exec(text);
}

function isSecretKeyAhead(re: RegExp, text: string, at: number): boolean {
  const next = stickyMatch(re, text, at);
  return next !== null && secretKindForKey(next[1]) !== undefined;
}

// `login(password=x)`, `f(token: string):`: closing brackets (and a colon after them) at the end
// belong to the code around the value. A loop, because `/[)}>:]+$/` rescans a long run from
// every start (quadratic).
function trimClosingBrackets(value: string): string {
  let end = value.length;
  while (end > 0 && ")}>:".includes(value[end - 1])) end--;
  return value.slice(0, end);
}

// Linear overall: every check below is anchored at the value start and bounded by the first run
// of identifier characters, and every parsed value is skipped past, never parsed twice.
function redactAssignments(text: string): string {
  // Most strings hold no secret-looking key at all; skip the scanner (and its regex set-up).
  if (!/[:=]/.test(text) || !SECRET_KEY_HINT_RE.test(text)) return text;
  const keys = new RegExp(KEY_SEP_RE);
  const value = new RegExp(VALUE_RE);
  const scheme = new RegExp(AUTH_SCHEME_RE);
  const keyAhead = new RegExp(KEY_AHEAD_RE);
  const callAhead = new RegExp(CALL_AHEAD_RE);
  const referenceAhead = new RegExp(REFERENCE_AHEAD_RE);
  let out = "";
  let cursor = 0;
  for (let m = keys.exec(text); m !== null; m = keys.exec(text)) {
    const kind = secretKindForKey(m[1]);
    if (kind === undefined) continue;
    let valueStart = keys.lastIndex;
    if (isSecretKeyAhead(keyAhead, text, valueStart)) continue;
    let style: ValueStyle = "bare";
    if (stickyMatch(scheme, text, valueStart) !== null) {
      valueStart = scheme.lastIndex;
      style = "scheme";
      if (isSecretKeyAhead(keyAhead, text, valueStart)) continue;
    } else if (
      stickyMatch(callAhead, text, valueStart) !== null ||
      stickyMatch(referenceAhead, text, valueStart) !== null
    ) {
      continue;
    }
    const v = stickyMatch(value, text, valueStart);
    if (v === null) continue;
    let start = valueStart + 1;
    let content: string;
    if (v[1] !== undefined) [start, content] = [valueStart + 2, v[1]];
    else if (v[2] !== undefined) content = v[2];
    else if (v[3] !== undefined) content = v[3];
    else [start, content] = [valueStart, trimClosingBrackets(v[4])];
    if (v[4] === undefined && style === "bare") style = "quoted";
    if (isRedactableValue(content, kind, style)) {
      out += text.slice(cursor, start) + redactionMarker(kind);
      cursor = start + content.length;
      keys.lastIndex = cursor;
    } else {
      keys.lastIndex = value.lastIndex;
    }
  }
  return cursor === 0 ? text : out + text.slice(cursor);
}

// ---------------------------------------------------------------------------------------------

/**
 * Replaces secrets in `text` with `[REDACTED:<kind>]` markers (see {@link SECRET_KINDS}).
 *
 * Covered: PEM private key blocks (also unterminated), JWTs, Anthropic / OpenAI / GitHub / Slack /
 * Stripe / Google keys and tokens, AWS access key ids, AWS secret keys and other secrets in
 * assignments whose key looks secret, `Bearer` credentials and URL passwords. Only the secret part
 * is replaced (`https://me:[REDACTED:url_password]@host`, `DB_PASSWORD=[REDACTED:password]`);
 * all other text is kept byte-identical, and ordinary prose such as "the token budget is 2000" or
 * an empty `password=` is untouched. Idempotent: `redactSecrets(redactSecrets(x)) ===
 * redactSecrets(x)`. Runs in time linear in the input.
 */
export function redactSecrets(text: string): string {
  let out = redactPemBlocks(text);
  // One scan for any rule's literal before trying the rules one by one.
  if (SHAPE_HINT_RE.test(out)) {
    for (const rule of SHAPE_RULES) {
      if (out.includes(rule.hint)) out = out.replace(rule.re, redactionMarker(rule.kind));
    }
  }
  out = redactCommandLines(out);
  if (/bearer/i.test(out)) out = redactBearer(out);
  out = redactUrlPasswords(out);
  return redactAssignments(out);
}
