/**
 * Test helper: a throwaway PostgreSQL cluster (Debian's `postgresql`, version 15) in a temporary
 * folder, listening on a free loopback port, owned by an unprivileged user.
 *
 * PostgreSQL refuses to run as root, so as root every server command runs as `nobody` through
 * `runuser` (the folder is chowned to it); as any other user they run directly. The cluster
 * authenticates with SCRAM passwords over TCP only (no Unix socket), like a team's server.
 * `prepare.ts` installs the package when it is missing.
 *
 * @module
 */
import { connectTeam, migrateTeam, TEAM_MEMBER_ROLE } from "../../daemon/team/mod.ts";
import { freePort, startTestDaemon, type TestDaemon } from "./daemon.ts";
import { POSTGRES_INITDB } from "./prepare.ts";

/** Where Debian's PostgreSQL 15 server programs are (`prepare.ts` installs them). */
export const POSTGRES_BIN_DIR: string = POSTGRES_INITDB.slice(0, POSTGRES_INITDB.lastIndexOf("/"));

/** The superuser of a test cluster (the team's admin in the tests). */
export const TEST_PG_ADMIN = "kl_admin";

/** A running test cluster. */
export interface TestPostgres {
  /** Loopback port it listens on. */
  port: number;
  /** Its data folder (to grep for bytes that must never reach it). */
  dataDir: string;
  /** The admin's password. */
  adminPassword: string;
  /**
   * A `postgres://` URL for `user` (default: the admin) with `password`, on database `db`, at
   * `host` (127.0.0.1, or 127.0.0.2).
   */
  url(options?: { user?: string; password?: string; db?: string; host?: string }): string;
  /** Runs SQL as the admin through `psql` (for setup: roles, databases, grants). */
  psql(sql: string, options?: { db?: string }): Promise<string>;
  /**
   * Crashes the server: an immediate shutdown (no checkpoint, connections cut), or with
   * `signal: "SIGKILL"` the postmaster and every backend killed at once (a machine losing power:
   * the sockets just close, no backend says goodbye).
   */
  kill(options?: { signal?: "SIGKILL" }): Promise<void>;
  /** Starts it again on the same folder and port. */
  restart(): Promise<void>;
  /** Stops the server and removes the folder. */
  [Symbol.asyncDispose](): Promise<void>;
}

function asServerUser(command: string, args: string[]): { cmd: string; args: string[] } {
  const path = `${POSTGRES_BIN_DIR}/${command}`;
  return Deno.uid() === 0
    ? { cmd: "runuser", args: ["-u", "nobody", "--", path, ...args] }
    : { cmd: path, args };
}

async function run(
  command: string,
  args: string[],
  options: { env?: Record<string, string> } = {},
) {
  const { cmd, args: full } = asServerUser(command, args);
  const out = await new Deno.Command(cmd, {
    args: full,
    env: options.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(
      `${command} ${args.join(" ")} failed (exit ${out.code}): ` +
        new TextDecoder().decode(out.stderr) + text,
    );
  }
  return text;
}

/** Starts a fresh cluster; dispose it (`await using`) so no server outlives the test. */
export async function startTestPostgres(): Promise<TestPostgres> {
  try {
    Deno.statSync(POSTGRES_INITDB);
  } catch {
    throw new Error(
      `PostgreSQL 15 is missing (${POSTGRES_INITDB}): run \`deno task test\` once ` +
        "(prepare installs Debian's postgresql package) or `sudo apt-get install -y postgresql`",
    );
  }
  const root = await Deno.makeTempDir({ prefix: "kiro-learn-pg-" });
  const dataDir = `${root}/data`;
  const adminPassword = crypto.randomUUID();
  await Deno.writeTextFile(`${root}/pwfile`, adminPassword + "\n");
  if (Deno.uid() === 0) {
    await Deno.chmod(root, 0o700);
    // nobody's uid/gid on Debian.
    for (const path of [root, `${root}/pwfile`]) await Deno.chown(path, 65534, 65534);
  }
  const port = freePort();
  const pgCtl = (args: string[]) => run("pg_ctl", ["-D", dataDir, ...args]);
  const start = () =>
    pgCtl([
      "-l",
      `${root}/server.log`,
      "-w",
      "-t",
      "60",
      "-o",
      // Also on 127.0.0.2: a loopback address the CLI's own --allow-net does not cover.
      `-p ${port} -h 127.0.0.1,127.0.0.2 -k '' -c fsync=off -c max_connections=200`,
      "start",
    ]);
  let running = false;
  try {
    await run("initdb", [
      "-D",
      dataDir,
      "-U",
      TEST_PG_ADMIN,
      `--pwfile=${root}/pwfile`,
      "--auth=scram-sha-256",
      "-E",
      "UTF8",
      "--locale=C",
      "--no-sync",
    ]);
    await start();
    running = true;
  } catch (error) {
    await Deno.remove(root, { recursive: true }).catch(() => {});
    throw error;
  }

  const url = (
    options: { user?: string; password?: string; db?: string; host?: string } = {},
  ) => {
    const user = encodeURIComponent(options.user ?? TEST_PG_ADMIN);
    const password = encodeURIComponent(options.password ?? adminPassword);
    const auth = password === "" ? user : `${user}:${password}`;
    return `postgres://${auth}@${options.host ?? "127.0.0.1"}:${port}/${options.db ?? "postgres"}`;
  };
  return {
    port,
    dataDir,
    adminPassword,
    url,
    async psql(sql, options = {}) {
      const out = await new Deno.Command(`${POSTGRES_BIN_DIR}/psql`, {
        args: ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url({ db: options.db })],
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const writer = out.stdin.getWriter();
      await writer.write(new TextEncoder().encode(sql));
      await writer.close();
      const result = await out.output();
      if (!result.success) {
        throw new Error(`psql failed: ${new TextDecoder().decode(result.stderr)}`);
      }
      return new TextDecoder().decode(result.stdout);
    },
    async kill(options = {}) {
      if (options.signal === "SIGKILL") {
        await killCluster(dataDir);
      } else {
        await pgCtl(["-m", "immediate", "-w", "stop"]);
      }
      running = false;
    },
    async restart() {
      await start();
      running = true;
    },
    async [Symbol.asyncDispose]() {
      if (running) {
        await pgCtl(["-m", "fast", "-w", "-t", "30", "stop"]).catch(() =>
          pgCtl(["-m", "immediate", "-w", "stop"])
        );
      }
      running = false;
      await Deno.remove(root, { recursive: true });
    },
  };
}

/** SIGKILLs a cluster's postmaster and all its children, and waits until they are gone. */
async function killCluster(dataDir: string): Promise<void> {
  const postmaster = Number(Deno.readTextFileSync(`${dataDir}/postmaster.pid`).split("\n")[0]);
  const children = [...Deno.readDirSync("/proc")].flatMap((entry) => {
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces, so split after ")".
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      return ppid === postmaster ? [Number(entry.name)] : [];
    } catch {
      return [];
    }
  });
  for (const pid of [postmaster, ...children]) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  for (const pid of [postmaster, ...children]) {
    while (alive(pid)) await new Promise((r) => setTimeout(r, 10));
  }
  // The postmaster may stay a zombie (its adopter need not reap it), which PostgreSQL's
  // start-up check takes for a live server: its lock file goes, as an admin would remove it.
  Deno.removeSync(`${dataDir}/postmaster.pid`);
}

function alive(pid: number): boolean {
  try {
    // A zombie (not reaped yet by its parent) is dead for our purpose.
    return !/^\d+ \(.*\) Z/.test(Deno.readTextFileSync(`/proc/${pid}/stat`));
  } catch {
    return false;
  }
}

/** A team member the tests connect as. */
export interface TestTeamMember {
  /** PostgreSQL role (LOGIN, member of `kiro_learn_member`). */
  role: string;
  /** Its password. */
  password: string;
  /** Project keys granted to it. */
  projects: string[];
}

/**
 * Makes the team database `db` (default `team`) on a test cluster, migrated by the admin, with
 * the members' roles and grants, as docs/team.md tells a team admin to.
 */
export async function createTeamDatabase(
  pg: TestPostgres,
  options: { db?: string; members: TestTeamMember[] },
): Promise<void> {
  const db = options.db ?? "team";
  await pg.psql(`CREATE DATABASE ${db}`);
  const sql = connectTeam(pg.url({ db, password: "" }), { password: pg.adminPassword });
  try {
    await migrateTeam(sql);
    for (const member of options.members) {
      await sql.unsafe(
        `CREATE ROLE ${member.role} LOGIN PASSWORD '${member.password}' IN ROLE ${TEAM_MEMBER_ROLE}`,
      );
      for (const key of member.projects) {
        await sql`INSERT INTO kl_grants (role, project_key) VALUES (${member.role}, ${key})`;
      }
    }
  } finally {
    await sql.end();
  }
}

/**
 * A collector daemon of the team member `role` (a child process with serve's flags): its
 * password in the data dir's `team-password` file, `team.url` pointing at `pg`'s `team`
 * database (through `host`, default 127.0.0.1), polling every 100 ms. `settings` adds to that.
 */
export async function startTeamDaemon(
  pg: TestPostgres,
  member: { role: string; password: string },
  options: { host?: string; settings?: Record<string, unknown> } = {},
): Promise<TestDaemon> {
  const dataDir = await Deno.makeTempDir({ prefix: `kiro-learn-${member.role}-` });
  await Deno.writeTextFile(`${dataDir}/team-password`, member.password, { mode: 0o600 });
  const url = pg.url({ user: member.role, password: "", db: "team", host: options.host });
  return await startTestDaemon({
    dataDir,
    settings: { ...options.settings, team: { url, pollMs: 100 } },
  });
}
