/**
 * Connecting to the team's PostgreSQL database: every option spelled out, and errors turned
 * into sentences that say what is wrong and what to do.
 *
 * The `postgres` client falls back to `PG*` environment variables (and the OS user) for every
 * option it is not given; the collector may not read those, so each one is given here. It still
 * reads `PGAPPNAME` and `PGTARGETSESSIONATTRS` unconditionally, the two variables the daemon is
 * granted for it (`TEAM_CLIENT_ENV` in `permissions/`).
 *
 * @module
 */
import postgres from "postgres";

/** A connection pool to the team database. */
export type TeamSql = postgres.Sql;

/** The role a team database URL names. */
export function teamUser(url: string): string {
  return decodeURIComponent(new URL(url).username);
}

/** The URL without its password (what may be shown or logged). */
export function redactTeamUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = "";
    return u.toString();
  } catch {
    return "(not a URL)";
  }
}

/** Opens a pool (lazily: nothing connects until the first query). */
export function connectTeam(
  url: string,
  options: { password: string; max?: number; connectTimeoutS?: number },
): TeamSql {
  const u = new URL(url);
  const sslmode = u.searchParams.get("sslmode");
  return postgres({
    host: u.hostname.replace(/^\[|\]$/g, ""),
    port: u.port === "" ? 5432 : Number(u.port),
    user: decodeURIComponent(u.username),
    database: decodeURIComponent(u.pathname.slice(1)),
    password: options.password,
    // Every default the client would otherwise look up as PG<NAME>:
    max: options.max ?? 1,
    ssl: sslmode === null || sslmode === "disable" ? false : sslmode as "require",
    sslnegotiation: null,
    idle_timeout: 0,
    connect_timeout: options.connectTimeoutS ?? 10,
    max_lifetime: null,
    max_pipeline: 100,
    backoff: (attempt: number) => Math.min(0.1 * 2 ** attempt, 5),
    keep_alive: 60,
    prepare: true,
    debug: false,
    fetch_types: false,
    publications: "alltables",
    target_session_attrs: undefined,
    connection: { application_name: "kiro-learn" },
    onnotice: () => {},
  } as postgres.Options<Record<string, never>>);
}

/**
 * What went wrong talking to the team database, in a sentence with what to do. The password
 * never appears in it.
 */
export function describeTeamError(error: unknown, url: string): string {
  const where = redactTeamUrl(url);
  const e = error as { code?: string; message?: string };
  const message = e?.message ?? String(error);
  switch (e?.code) {
    case "28P01":
      return `the team database refused the password for role "${teamUser(url)}" (${where}): ` +
        "check the password your admin gave you and run `kiro-learn team join` again";
    case "28000":
      return `the team database does not let role "${teamUser(url)}" in (${where}): ` +
        `${message}; ask your admin to create the role or allow it in pg_hba.conf`;
    case "3D000":
      return `the team database does not exist (${where}): ${message}; check the database ` +
        "name in the URL";
    case "ECONNREFUSED":
    case "ECONNRESET":
    case "EPIPE":
    case "57P01": // terminated by an administrator (the server is shutting down)
    case "57P02":
    case "57P03": // the server is starting up
    case "CONNECT_TIMEOUT":
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "CONNECTION_CLOSED":
    case "CONNECTION_ENDED":
    case "CONNECTION_DESTROYED":
      return `cannot reach the team database at ${where} (${e.code}): check the host and port, ` +
        "and that the server is running";
    case "42501":
      return `role "${teamUser(url)}" may not use the team tables (${where}): ${message}; ` +
        "ask your admin to `GRANT kiro_learn_member TO` it";
    case "42P01":
      return `the team database has no kiro-learn tables yet (${where}): ask your admin to run ` +
        "`kiro-learn team migrate` on it";
  }
  if (/ECONNREFUSED|ECONNRESET|connect|timeout|closed/i.test(message)) {
    return `cannot reach the team database at ${where}: ${message}`;
  }
  return `team database error (${where}): ${message}`;
}

/**
 * The team role's password from the data dir's password file (`kiro-learn team join` writes
 * it, 0600), or "" when there is none (a server that trusts this host, or a client
 * certificate, needs none).
 */
export function readTeamPassword(path: string): string {
  try {
    return Deno.readTextFileSync(path).replace(/\r?\n$/, "");
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return "";
    throw error;
  }
}
