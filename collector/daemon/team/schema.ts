/**
 * The team database's schema: numbered migrations with the same drift detection as the local
 * SQLite database's (`core/storage/migrations.ts`: a checksum of each applied migration, a clear
 * error on an edited migration or a newer schema).
 *
 * What the schema guarantees, enforced by PostgreSQL and not by the collector:
 * - a role reads and writes only the records of projects granted to it (or to a role it is a
 *   member of) in `kl_grants`: row-level security;
 * - `change_seq` grows in commit order within a project (writers of a project take turns on an
 *   advisory lock), so a puller's cursor never skips a row that committed late;
 * - a tombstone (forgotten, or merged into a survivor) is final: a stale copy written later by
 *   a machine that was offline changes nothing;
 * - who wrote a record is the connected role (`origin_role`, `changed_by_role`), not what the
 *   client claims; members may insert and update, never delete.
 *
 * @module
 */
import { PROJECT_ID_GRAMMAR } from "@kiro-learn/core/project";
import { type Migration, migrationChecksum, MigrationDriftError } from "@kiro-learn/core/storage";
import type { TeamSql } from "./connect.ts";

/** The group role members are granted (`GRANT kiro_learn_member TO alice`). */
export const TEAM_MEMBER_ROLE = "kiro_learn_member";

/** The channel a change is announced on (no payload: a listener pulls what it may read). */
export const TEAM_CHANNEL = "kiro_learn_changes";

const GRANTED = `(
  kl_grants.role = current_user
  OR EXISTS (SELECT 1 FROM pg_roles r WHERE r.rolname = kl_grants.role
    AND pg_has_role(current_user, r.oid, 'MEMBER'))
)`;

/** Every team schema migration, in order. Never edit a released one: append. */
export const TEAM_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "team_init",
    sql: `
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${TEAM_MEMBER_ROLE}') THEN
    CREATE ROLE ${TEAM_MEMBER_ROLE} NOLOGIN;
  END IF;
END $$;

CREATE TABLE kl_grants (
  role name NOT NULL,
  project_key text NOT NULL CHECK (project_key ~ '^[0-9a-f]{64}$'),
  granted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (role, project_key)
);

CREATE SEQUENCE kl_change_seq;

CREATE TABLE kl_records (
  project_key text NOT NULL,
  record_id text NOT NULL,
  change_seq bigint NOT NULL,
  state text NOT NULL CHECK (state IN ('live', 'forgotten', 'merged')),
  body jsonb,
  superseded_by text,
  origin_actor text NOT NULL,
  origin_role name NOT NULL,
  origin_client text NOT NULL,
  changed_by_role name NOT NULL,
  changed_by_client text NOT NULL,
  changed_at timestamptz NOT NULL,
  PRIMARY KEY (project_key, record_id),
  CHECK ((state = 'live') = (body IS NOT NULL)),
  CHECK ((state = 'merged') = (superseded_by IS NOT NULL))
);
CREATE INDEX kl_records_pull ON kl_records (project_key, change_seq);

CREATE FUNCTION kl_records_stamp() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  -- Writers of one project take turns until they commit, so change_seq order is commit order.
  PERFORM pg_advisory_xact_lock(hashtext('kl_records:' || NEW.project_key));
  IF TG_OP = 'UPDATE' THEN
    IF OLD.state <> 'live' THEN
      RETURN NULL; -- a tombstone is final
    END IF;
    NEW.origin_actor := OLD.origin_actor;
    NEW.origin_role := OLD.origin_role;
    NEW.origin_client := OLD.origin_client;
  ELSE
    NEW.origin_role := current_user;
  END IF;
  NEW.changed_by_role := current_user;
  NEW.change_seq := nextval('kl_change_seq');
  NEW.changed_at := now();
  RETURN NEW;
END $fn$;
CREATE TRIGGER kl_records_stamp BEFORE INSERT OR UPDATE ON kl_records
  FOR EACH ROW EXECUTE FUNCTION kl_records_stamp();

CREATE FUNCTION kl_records_notify() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM pg_notify('${TEAM_CHANNEL}', '');
  RETURN NULL;
END $fn$;
CREATE TRIGGER kl_records_notify AFTER INSERT OR UPDATE ON kl_records
  FOR EACH STATEMENT EXECUTE FUNCTION kl_records_notify();

ALTER TABLE kl_grants ENABLE ROW LEVEL SECURITY;
CREATE POLICY kl_grants_own ON kl_grants FOR SELECT USING ${GRANTED};

ALTER TABLE kl_records ENABLE ROW LEVEL SECURITY;
CREATE POLICY kl_records_granted ON kl_records
  USING (EXISTS (SELECT 1 FROM kl_grants
    WHERE kl_grants.project_key = kl_records.project_key AND ${GRANTED}))
  WITH CHECK (EXISTS (SELECT 1 FROM kl_grants
    WHERE kl_grants.project_key = kl_records.project_key AND ${GRANTED}));

GRANT SELECT ON kl_grants TO ${TEAM_MEMBER_ROLE};
GRANT SELECT, INSERT, UPDATE ON kl_records TO ${TEAM_MEMBER_ROLE};
GRANT USAGE ON SEQUENCE kl_change_seq TO ${TEAM_MEMBER_ROLE};
`,
  },
  {
    version: 2,
    name: "project_key_grammar",
    // Version 1 accepted only 64 hex characters, which is a path-derived id: every project with a
    // git remote (`git-` + 64 hex, the id teammates' checkouts share) could not be granted. The
    // check is now the project-id grammar itself (core/project), the one the ids are made by.
    // Changing that grammar changes this migration's checksum: it needs a new migration then.
    sql: `
ALTER TABLE kl_grants DROP CONSTRAINT kl_grants_project_key_check;
ALTER TABLE kl_grants ADD CONSTRAINT kl_grants_project_key_check
  CHECK (project_key ~ '${PROJECT_ID_GRAMMAR}');
ALTER TABLE kl_records ADD CONSTRAINT kl_records_project_key_check
  CHECK (project_key ~ '${PROJECT_ID_GRAMMAR}');
`,
  },
];

const HISTORY = `CREATE TABLE IF NOT EXISTS kl_schema_migrations (
  version integer PRIMARY KEY,
  name text NOT NULL,
  checksum text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

/** Where the team database's schema stands against this build. */
export interface TeamSchemaState {
  /** Versions applied there. */
  applied: number[];
  /** Versions this build knows that are not applied yet. */
  pending: number[];
}

/**
 * Reads the team database's migration history and checks it against `migrations`: throws
 * `MigrationDriftError` on an edited or unknown (newer) migration. A member role may call it.
 */
export async function teamSchemaState(
  sql: TeamSql,
  migrations: readonly Migration[] = TEAM_MIGRATIONS,
): Promise<TeamSchemaState> {
  const [{ exists }] = await sql<{ exists: boolean }[]>`
    SELECT to_regclass('kl_schema_migrations') IS NOT NULL AS exists`;
  const rows = exists
    ? await sql<{ version: number; name: string; checksum: string }[]>`
      SELECT version, name, checksum FROM kl_schema_migrations ORDER BY version`
    : [];
  for (const row of rows) {
    const known = migrations.find((m) => m.version === row.version);
    if (!known) {
      throw new MigrationDriftError(
        `the team database has migration ${row.version} (${row.name}) that this kiro-learn ` +
          "does not know: a teammate's newer kiro-learn migrated it. Upgrade kiro-learn.",
      );
    }
    if (known.name !== row.name || migrationChecksum(known) !== row.checksum) {
      throw new MigrationDriftError(
        `team migration ${row.version} was applied as "${row.name}" with different SQL than ` +
          `this build's "${known.name}": the team schema has drifted. Use the kiro-learn ` +
          "version that applied it, or have your admin repair kl_schema_migrations.",
      );
    }
  }
  const applied = rows.map((r) => r.version);
  return {
    applied,
    pending: migrations.map((m) => m.version).filter((v) => !applied.includes(v)),
  };
}

/**
 * Applies every pending migration, each in its own transaction (run by the team's admin:
 * `kiro-learn team migrate`). Returns the versions applied by this call.
 */
export async function migrateTeam(
  sql: TeamSql,
  migrations: readonly Migration[] = TEAM_MIGRATIONS,
): Promise<number[]> {
  await sql.unsafe(HISTORY);
  await sql.unsafe(`GRANT SELECT ON kl_schema_migrations TO PUBLIC`);
  const state = await teamSchemaState(sql, migrations);
  const ran: number[] = [];
  for (const migration of migrations) {
    if (!state.pending.includes(migration.version)) continue;
    await sql.begin(async (tx) => {
      // Two admins migrating at once: the second waits, then finds the version applied.
      await tx`LOCK TABLE kl_schema_migrations IN EXCLUSIVE MODE`;
      const [done] =
        await tx`SELECT 1 FROM kl_schema_migrations WHERE version = ${migration.version}`;
      if (done) return;
      await tx.unsafe(migration.sql);
      await tx`INSERT INTO kl_schema_migrations (version, name, checksum)
        VALUES (${migration.version}, ${migration.name}, ${migrationChecksum(migration)})`;
      ran.push(migration.version);
    });
  }
  return ran;
}
