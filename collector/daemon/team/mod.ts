/**
 * Team memory: sharing projects' memory records with teammates through a PostgreSQL database
 * (the schema and its migrations, the connection, and the sync the collector runs in a supervised
 * Worker).
 *
 * @module
 */
export {
  connectTeam,
  describeTeamError,
  readTeamPassword,
  redactTeamUrl,
  type TeamSql,
  teamUser,
} from "./connect.ts";
export {
  migrateTeam,
  TEAM_CHANNEL,
  TEAM_MEMBER_ROLE,
  TEAM_MIGRATIONS,
  type TeamSchemaState,
  teamSchemaState,
} from "./schema.ts";
export { startTeamSync, type TeamSync, type TeamSyncOptions, type TeamSyncStatus } from "./sync.ts";
export {
  startTeamSyncWorker,
  type TeamSyncWorker,
  type TeamSyncWorkerOptions,
  teamWorkerPermissions,
  type TeamWorkerReply,
  type TeamWorkerRequest,
  type TeamWorkerStatus,
} from "./worker.ts";
