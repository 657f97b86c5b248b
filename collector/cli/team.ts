/**
 * `kiro-learn team join|status|leave|migrate`: team memory through PostgreSQL.
 *
 * The CLI may reach only loopback (`--allow-net=127.0.0.1,localhost`); a team command that needs
 * the team database runs itself again with exactly that database's `host:port` added, and
 * nothing else. The password comes from `--password-stdin`, the URL, or `PGPASSWORD`, and is
 * kept in `<data dir>/team-password` (0600), never in settings.json, a log or a message.
 *
 * @module
 */
import { cliArgv, DENO_ENV } from "@kiro-learn/core/launch";
import { REMOTE_PROJECT_ID_PREFIX, resolveProject } from "@kiro-learn/core/project";
import {
  ensureDataDir,
  loadSettings,
  postgresHostPort,
  postgresUrlProblem,
  type Settings,
  writeSecureFile,
} from "@kiro-learn/core/settings";
import { ROUTES } from "@kiro-learn/core/api";
import {
  connectTeam,
  describeTeamError,
  migrateTeam,
  readTeamPassword,
  redactTeamUrl,
  TEAM_MEMBER_ROLE,
  teamSchemaState,
  teamUser,
} from "../daemon/team/mod.ts";
import { callCollector, health } from "./_client.ts";
import { start } from "./start.ts";
import { stop } from "./stop.ts";
import { type Command, type CommandArgs, flag, invocationDir, UsageError } from "./_command.ts";

/** A team command failed; nothing was changed. Exit code 1. */
export class TeamError extends Error {}

/** The URL without its password, and the password from wherever it was given. */
export async function teamCredentials(
  url: string,
  options: { passwordStdin?: boolean; env?: Record<string, string | undefined> } = {},
): Promise<{ url: string; password: string }> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TeamError(`"${url}" is not a URL: give postgres://user@host[:port]/database`);
  }
  let password = decodeURIComponent(parsed.password);
  parsed.password = "";
  const bare = parsed.toString();
  const problem = postgresUrlProblem(bare);
  if (problem) {
    throw new TeamError(`${redactTeamUrl(url)} ${problem}: give postgres://user@host/database`);
  }
  if (options.passwordStdin) {
    password = (await new Response(Deno.stdin.readable).text()).replace(/\r?\n$/, "");
  } else if (password === "") {
    password = (options.env ?? Deno.env.toObject()).PGPASSWORD ?? "";
  }
  return { url: bare, password };
}

/** True when this process may reach the team database; otherwise it runs itself again. */
function mayReach(url: string): boolean {
  return Deno.permissions.querySync({ name: "net", host: postgresHostPort(url) }).state ===
    "granted";
}

/**
 * Runs `team <sub> <url>` again in a child that may also reach `url`'s host and port, handing
 * it the password on its stdin (never on its command line).
 */
async function rerunWithNet(
  url: string,
  options: { sub: string; password: string | null },
): Promise<number> {
  const [deno, ...argv] = cliArgv().map((f) =>
    f.startsWith("--allow-net=") ? `${f},${postgresHostPort(url)}` : f
  );
  const tail = options.password === null ? [options.sub] : [options.sub, url, "--password-stdin"];
  const child = new Deno.Command(deno, {
    args: [...argv, "team", ...tail],
    cwd: invocationDir(),
    env: DENO_ENV,
    stdin: options.password === null ? "inherit" : "piped",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  if (options.password !== null) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.password));
    await writer.close();
  }
  return (await child.status).code;
}

/** What `join` found, before anything is written. */
export interface JoinCheck {
  /** The role connected as. */
  role: string;
  /** Projects granted to it (or to a role it is in). */
  granted: string[];
}

/**
 * Checks that `url` with `password` is a usable team database: reachable, the password right,
 * the schema this build's, the role a member. Throws a `TeamError` saying what is wrong.
 */
export async function checkTeam(url: string, password: string): Promise<JoinCheck> {
  const sql = connectTeam(url, { password, connectTimeoutS: 10 });
  try {
    const [{ role }] = await sql<{ role: string }[]>`SELECT current_user AS role`;
    const schema = await teamSchemaState(sql);
    if (schema.applied.length === 0) {
      throw new TeamError(
        `${redactTeamUrl(url)} has no kiro-learn tables yet: ask your admin to run ` +
          "`kiro-learn team migrate` on it (see docs/team.md)",
      );
    }
    if (schema.pending.length > 0) {
      throw new TeamError(
        `the team database is at schema version ${Math.max(...schema.applied)}, this ` +
          `kiro-learn needs ${schema.pending.join(", ")} too: ask your admin to run ` +
          "`kiro-learn team migrate`",
      );
    }
    const [{ member }] = await sql<{ member: boolean }[]>`
      SELECT has_table_privilege('kl_records', 'INSERT') AS member`;
    if (!member) {
      throw new TeamError(
        `role "${role}" may not write team memory: ask your admin to run ` +
          `\`GRANT ${TEAM_MEMBER_ROLE} TO ${role};\``,
      );
    }
    const grants = await sql<{ project_key: string }[]>`
      SELECT DISTINCT project_key FROM kl_grants ORDER BY project_key`;
    return { role, granted: grants.map((g) => g.project_key) };
  } catch (error) {
    if (error instanceof TeamError) throw error;
    throw new TeamError(describeTeamError(error, url));
  } finally {
    await sql.end({ timeout: 1 });
  }
}

function writeTeamSettings(settings: Settings, url: string | null): void {
  let current: Record<string, unknown> = {};
  try {
    current = JSON.parse(Deno.readTextFileSync(settings.paths.settings));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      throw new TeamError(
        `cannot read ${settings.paths.settings} (${(error as Error).message}): fix or remove ` +
          "it, then run this again; nothing was changed",
      );
    }
  }
  const team = { ...(current.team as Record<string, unknown> | undefined) };
  if (url === null) delete team.url;
  else team.url = url;
  const next: Record<string, unknown> = { ...current, team };
  if (Object.keys(team).length === 0) delete next.team;
  writeSecureFile(settings.paths.settings, JSON.stringify(next, null, 2) + "\n");
}

/** The statement an admin runs to share `projectKey` with `role`. */
export function grantStatement(role: string, projectKey: string): string {
  return `INSERT INTO kl_grants (role, project_key) VALUES ('${role}', '${projectKey}');`;
}

/**
 * Restarts a running collector so a team setting takes effect now (its first sync cycle runs at
 * once); says so, or that the change waits for the collector's next start.
 */
async function applyToCollector(settings: Settings): Promise<void> {
  if (!await health(settings)) {
    console.log(
      "the collector is not running: this takes effect when it starts (`kiro-learn start`)",
    );
    return;
  }
  await stop(settings, { print: () => {} });
  await start(loadSettings(), { print: (line) => console.log(`collector restarted: ${line}`) });
}

async function join(args: CommandArgs, settings: Settings): Promise<number> {
  const [, raw] = args.positionals;
  if (!raw) throw new UsageError("name the team database: kiro-learn team join postgres://…");
  const { url, password } = await teamCredentials(raw, {
    passwordStdin: flag(args, "password-stdin"),
  });
  if (!mayReach(url)) return await rerunWithNet(url, { sub: "join", password });
  const check = await checkTeam(url, password);
  // A machine that never ran kiro-learn has no data dir yet.
  ensureDataDir(settings.dataDir);
  writeSecureFile(settings.paths.teamPassword, password + "\n");
  writeTeamSettings(settings, url);
  const project = resolveProject(invocationDir());
  console.log(`joined ${redactTeamUrl(url)} as role "${check.role}"`);
  console.log(
    `projects granted: ${check.granted.length}` +
      (check.granted.includes(project.project_id)
        ? ` (this project, ${project.display_name}, is one)`
        : `; this project (${project.display_name}) is not: ask your admin to run\n  ` +
          grantStatement(check.role, project.project_id) +
          (project.project_id.startsWith(REMOTE_PROJECT_ID_PREFIX) ? "" : `\n  ${PATH_KEY}`)),
  );
  console.log(`password kept in ${settings.paths.teamPassword} (0600)`);
  await applyToCollector(settings);
  return 0;
}

const PATH_KEY = "(this project has no git remote, so its key comes from its path on this " +
  "machine: teammates' checkouts have other keys; give the repository a remote to share it)";

async function teamStatus(settings: Settings): Promise<number> {
  if (settings.team.url === "") {
    console.log("team: not joined (kiro-learn team join postgres://user@host/database)");
    return 0;
  }
  console.log(`team: ${settings.team.url}`);
  if (!await health(settings)) {
    console.log("collector: stopped (sharing resumes when it starts; `kiro-learn start`)");
    return 0;
  }
  const stats = await callCollector(settings, ROUTES.stats);
  const team = (stats.body as { team?: Record<string, unknown> | null }).team;
  if (!team) {
    console.log(
      "collector: running without the team settings: restart it so they take effect " +
        "(`kiro-learn stop && kiro-learn start`)",
    );
    return 0;
  }
  for (const [key, value] of Object.entries(team)) {
    if (key !== "url" && key !== "granted" && value !== null) console.log(`${key}: ${value}`);
  }
  const projects = (stats.body as { projects?: ProjectSummary[] }).projects ?? [];
  for (const line of sharingLines(projects, team.granted as string[] | null, String(team.role))) {
    console.log(line);
  }
  return team.last_error ? 1 : 0;
}

/** What `/v1/stats` says of each local project (one entry per namespace). */
interface ProjectSummary {
  project_id: string;
  display_name: string;
  memory_count: number;
}

/**
 * Each local project, shared or not and why, and each granted key that matches no project here:
 * nothing about sharing is silent.
 */
export function sharingLines(
  projects: readonly ProjectSummary[],
  granted: readonly string[] | null,
  role: string,
): string[] {
  if (granted === null) {
    return ["sharing by project: not known yet (the collector has not reached the team database)"];
  }
  const local = new Map<string, { name: string; records: number }>();
  for (const p of projects) {
    const seen = local.get(p.project_id);
    local.set(p.project_id, {
      name: seen?.name ?? p.display_name,
      records: (seen?.records ?? 0) + p.memory_count,
    });
  }
  const lines = ["sharing by project:"];
  for (const [key, { name, records }] of local) {
    if (granted.includes(key)) {
      lines.push(`  ${name} (${key}): shared`);
      continue;
    }
    lines.push(
      `  ${name} (${key}): not shared, not granted to role "${role}"; its ${records} ` +
        `record(s) stay on this machine. To share it, your admin runs: ` +
        grantStatement(role, key) +
        (key.startsWith(REMOTE_PROJECT_ID_PREFIX) ? "" : ` ${PATH_KEY}`),
    );
  }
  for (const key of granted) {
    if (local.has(key)) continue;
    lines.push(
      `  ${key}: granted, but no project on this machine has this key (pulled once you work ` +
        "in a checkout of it; a key that is no project id `team join` printed matches nothing)",
    );
  }
  return lines;
}

async function leave(settings: Settings): Promise<number> {
  if (settings.team.url === "") {
    console.log("not joined to a team: nothing to leave");
    return 0;
  }
  writeTeamSettings(settings, null);
  try {
    Deno.removeSync(settings.paths.teamPassword);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const role = teamUser(settings.team.url);
  console.log(
    `left ${settings.team.url}; every memory here stays, teammates' records included. ` +
      "Changes to projects shared before are kept here and published if you join again.",
  );
  console.log(
    `Leaving is local only: role "${role}" can still read and change every project granted to ` +
      "it until your admin revokes it:\n" +
      `  REVOKE ${TEAM_MEMBER_ROLE} FROM ${role};\n` +
      `  DELETE FROM kl_grants WHERE role = '${role}';`,
  );
  await applyToCollector(settings);
  return 0;
}

async function migrate(args: CommandArgs, settings: Settings): Promise<number> {
  const [, raw] = args.positionals;
  const source = raw ?? (settings.team.url || undefined);
  if (!source) {
    throw new UsageError("name the team database: kiro-learn team migrate postgres://admin@…");
  }
  const { url, password } = raw
    ? await teamCredentials(raw, { passwordStdin: flag(args, "password-stdin") })
    : { url: source, password: readTeamPassword(settings.paths.teamPassword) };
  if (!mayReach(url)) {
    return await rerunWithNet(url, { sub: "migrate", password: raw ? password : null });
  }
  const sql = connectTeam(url, { password, connectTimeoutS: 10 });
  try {
    const ran = await migrateTeam(sql);
    console.log(
      ran.length === 0
        ? `${redactTeamUrl(url)}: schema up to date`
        : `${redactTeamUrl(url)}: applied team migration(s) ${ran.join(", ")} as "${
          teamUser(url)
        }"`,
    );
    return 0;
  } catch (error) {
    throw new TeamError(describeMigrateError(error, url));
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/**
 * What went wrong migrating, with what the admin can do: the permission a migration needs is not
 * a member's (a member role is told to get `kiro_learn_member`; a migrating role needs to create
 * in schema public and to create roles).
 */
export function describeMigrateError(error: unknown, url: string): string {
  if (error instanceof Error && error.name === "MigrationDriftError") return error.message;
  const e = error as { code?: string; message?: string };
  const role = teamUser(url);
  const where = redactTeamUrl(url);
  if (e?.code === "42501" && /schema public/i.test(e.message ?? "")) {
    return `role "${role}" may not create tables in schema public of ${where}: run ` +
      "`kiro-learn team migrate` as the database's owner (or a superuser), or have one run " +
      `\`GRANT CREATE ON SCHEMA public TO ${role};\` (PostgreSQL 15 no longer lets every role ` +
      "create there); nothing was changed";
  }
  if (e?.code === "42501" && /create role/i.test(e.message ?? "")) {
    return `role "${role}" may not create roles (${where}): the migration creates the group ` +
      `role ${TEAM_MEMBER_ROLE}; run it as a role with CREATEROLE (or a superuser), or have ` +
      `one run \`CREATE ROLE ${TEAM_MEMBER_ROLE} NOLOGIN;\` first; nothing was changed`;
  }
  if (e?.code === "42501" || e?.code === "42P01") {
    return `role "${role}" may not migrate ${where} (${e.message}): run ` +
      "`kiro-learn team migrate` as the database's owner or a superuser; nothing was changed";
  }
  return describeTeamError(error, url);
}

/** The `team` command. */
export const teamCommand: Command = {
  name: "team",
  usage: "kiro-learn team join <postgres url> [--password-stdin] | status | leave | " +
    "migrate [<postgres url>] [--password-stdin]",
  summary: "share projects' memory with your team through PostgreSQL (join, status, leave, " +
    "migrate)",
  options: { "password-stdin": { type: "boolean" } },
  run: async (args) => {
    const settings = loadSettings();
    const [sub] = args.positionals;
    try {
      switch (sub) {
        case "join":
          return await join(args, settings);
        case "status":
          return await teamStatus(settings);
        case "leave":
          return await leave(settings);
        case "migrate":
          return await migrate(args, settings);
      }
    } catch (error) {
      if (error instanceof TeamError) {
        console.error(`kiro-learn team ${sub}: ${error.message}`);
        return 1;
      }
      throw error;
    }
    throw new UsageError(`unknown team command "${sub ?? ""}": join, status, leave or migrate`);
  },
};
