/**
 * Generates the template distractors of the retrieval-quality set
 * (`data/distractors.ndjson`): everyday memory records of the fictional `tideline` project —
 * small UI changes, dependency bumps, refactors, routine fixes, session notes — across the same
 * areas as the labelled targets, so they share surface words (login, token, cache, table, job,
 * upload, hour, test...) with the queries without answering them.
 *
 * Deterministic (seeded); the output is checked in, and the integrity test fails if this script
 * would now write something else.
 *
 * ```sh
 * deno run -A collector/tooling/quality/generate.ts          # rewrite data/distractors.ndjson
 * ```
 *
 * @module
 */
import { createRng, type Rng } from "@kiro-learn/core/testing";
import type { SetRecord } from "./dataset.ts";

type Type = SetRecord["type"];

interface Area {
  concepts: string[];
  components: string[];
  files: string[];
  templates: { type: Type; title: string; summary: string; facts: string[] }[];
  /** Sentences that may follow a template's summary (records are a few sentences long). */
  more: string[];
  /** Facts that may follow a template's facts. */
  moreFacts: string[];
}

const LIBS = [
  ["zod", "3.23"],
  ["react", "18.3"],
  ["vite", "5.4"],
  ["pino", "9.3"],
  ["knex", "3.1"],
  ["bullmq", "5.12"],
  ["stripe", "16.2"],
  ["playwright", "1.46"],
  ["date-fns", "3.6"],
  ["ioredis", "5.4"],
  ["sharp", "0.33"],
  ["yargs", "17.7"],
  ["eslint", "9.9"],
  ["typescript", "5.5"],
  ["@sentry/node", "8.26"],
  ["meilisearch", "0.41"],
];

const AREAS: Record<string, Area> = {
  auth: {
    concepts: ["auth", "ui", "security"],
    components: [
      "LoginPage",
      "SignupForm",
      "InviteAccept",
      "AccountMenu",
      "TwoFactorSetup",
      "SessionList",
      "ProfileSettings",
    ],
    files: [
      "web/src/auth/LoginPage.tsx",
      "api/src/auth/routes.ts",
      "api/src/auth/invites.ts",
      "web/src/account/SessionList.tsx",
      "api/src/auth/totp.ts",
    ],
    more: [
      "Copy for the error states was reviewed by design.",
      "The {C} change also applies to the admin app, which shares the component.",
      "Screen-reader labels were added for every input in {C}.",
      "The old markup was removed instead of kept behind a flag.",
    ],
    moreFacts: [
      "Design review done for {C}",
      "Covered by the auth Storybook stories",
    ],
    templates: [
      {
        type: "tool_use",
        title: "{C} shows a spinner while the request is pending",
        summary:
          "Added a loading state to {C}: the submit button is disabled and shows a spinner until the API answers. Errors from the server are shown above the form.",
        facts: ["{C} lives in {F}"],
      },
      {
        type: "tool_use",
        title: "Renamed {C} props for consistency",
        summary:
          "Renamed onSubmitted to onSuccess and errorText to error in {C} and updated the {N} call sites.",
        facts: ["Call sites updated: {N}"],
      },
      {
        type: "decision",
        title: "Invitation links expire after {M} days",
        summary:
          "Workspace invitation links now expire after {M} days; an expired link shows a page that lets the invitee ask the admin for a new one.",
        facts: ["Expiry is stored on invites.expires_at"],
      },
      {
        type: "tool_use",
        title: "Two-factor setup screen shows recovery codes once",
        summary:
          "After enabling TOTP the setup screen lists {M} recovery codes with a download button and never shows them again.",
        facts: ["{M} recovery codes are generated"],
      },
      {
        type: "discovery",
        title: "The account menu reads the user from the session endpoint",
        summary:
          "AccountMenu calls GET /auth/me on mount; the response is cached by React Query for {M} minutes so the avatar and name do not flicker between pages.",
        facts: ["/auth/me returns id, name, email and avatar"],
      },
      {
        type: "tool_use",
        title: "Signed-in devices list shows browser and last activity",
        summary:
          "SessionList shows each active session with the browser, the city from the IP, and when it was last used, with a button to sign that device out.",
        facts: ["Last activity is rounded to the hour"],
      },
    ],
  },
  db: {
    concepts: ["postgres", "migrations", "database"],
    components: [
      "projects",
      "line_items",
      "invoices",
      "audit_log",
      "comments",
      "attachments",
      "memberships",
      "notifications",
    ],
    files: [
      "db/migrations/20240404_comments.ts",
      "db/migrations/20240419_audit_log.ts",
      "api/src/db/queries.ts",
      "db/seeds/dev.ts",
    ],
    more: [
      "The migration is reversible and was tested with up, down, up.",
      "{T} is small enough in production that the change runs in well under a second.",
      "Query plans were checked on a copy of production data.",
      "The ORM model for {T} was regenerated after the change.",
    ],
    moreFacts: [
      "Reversible migration",
      "Applied to staging first",
    ],
    templates: [
      {
        type: "tool_use",
        title: "Migration adds {T}.archived_at",
        summary:
          "New migration adds a nullable archived_at timestamp to {T} and a partial index on rows where it is null, so the default lists skip archived rows.",
        facts: ["Partial index on {T} WHERE archived_at IS NULL"],
      },
      {
        type: "tool_use",
        title: "Index on {T}(created_at) for the activity feed",
        summary:
          "The activity feed sorts {T} by created_at; added a btree index so the first page no longer scans the table.",
        facts: ["EXPLAIN now shows an index scan"],
      },
      {
        type: "discovery",
        title: "{T} rows are soft-deleted",
        summary:
          "Deleting from {T} in the UI only sets deleted_at; a weekly job removes rows older than {M} days for good.",
        facts: ["Hard delete after {M} days"],
      },
      {
        type: "tool_use",
        title: "Dev seed creates {N} {T}",
        summary:
          "The development seed script now creates {N} {T} spread over three workspaces so pagination can be tested locally.",
        facts: ["Run with npm run db:seed"],
      },
      {
        type: "pattern",
        title: "Queries for {T} go through the repository module",
        summary:
          "All SQL for {T} lives in one repository file; route handlers call functions like list{C}ByWorkspace instead of writing queries inline.",
        facts: ["Repositories live next to their route modules"],
      },
      {
        type: "tool_use",
        title: "Foreign key from {T} to workspaces with ON DELETE CASCADE",
        summary:
          "Added the missing foreign key from {T}.workspace_id to workspaces so deleting a workspace removes its {T}.",
        facts: ["Cascade removes dependent rows"],
      },
    ],
  },
  ci: {
    concepts: ["ci", "github-actions", "testing"],
    components: ["lint", "typecheck", "unit", "e2e", "build", "preview", "audit"],
    files: [
      ".github/workflows/ci.yml",
      ".github/workflows/preview.yml",
      ".github/workflows/nightly.yml",
    ],
    more: [
      "The workflow file was linted with actionlint before merging.",
      "Run times are visible in the Actions usage report.",
      "The change was tried on a branch for a day before merging.",
      "Secrets are read from the repository environment, not hard-coded.",
    ],
    moreFacts: [
      "actionlint passes",
      "Uses the ubuntu-22.04 runner",
    ],
    templates: [
      {
        type: "tool_use",
        title: "CI {C} job runs in parallel with the others",
        summary:
          "Split the {C} step into its own job so it runs in parallel; the whole workflow now finishes about {M} minutes sooner.",
        facts: ["Jobs share the install cache"],
      },
      {
        type: "tool_use",
        title: "Preview deployments for every pull request",
        summary:
          "Each PR gets a preview URL posted as a comment; previews are deleted when the PR closes.",
        facts: ["Preview URL format pr-{N}.preview.tideline.dev"],
      },
      {
        type: "decision",
        title: "Required checks: lint, typecheck and unit",
        summary:
          "Branch protection on main requires lint, typecheck and unit to pass; e2e is informative only until it is stable.",
        facts: ["e2e is not a required check"],
      },
      {
        type: "tool_use",
        title: "Nightly workflow runs npm audit and opens an issue",
        summary:
          "A scheduled workflow runs the dependency audit at 03:00 UTC and opens or updates an issue when high severity advisories appear.",
        facts: ["Runs at 03:00 UTC"],
      },
      {
        type: "discovery",
        title: "The {C} job needs {M} GB of memory",
        summary:
          "The {C} job was killed with exit code 137 on the default runner; it now sets NODE_OPTIONS=--max-old-space-size and uses the larger runner.",
        facts: ["Exit code 137 means the process was OOM-killed"],
      },
      {
        type: "tool_use",
        title: "Test results uploaded as JUnit reports",
        summary:
          "The unit job writes JUnit XML and the workflow publishes it so failures show inline on the pull request.",
        facts: ["jest-junit writes reports/junit.xml"],
      },
    ],
  },
  realtime: {
    concepts: ["websocket", "realtime"],
    components: [
      "presence",
      "typing indicator",
      "notifications",
      "cursor sharing",
      "live comments",
    ],
    files: [
      "web/src/realtime/presence.ts",
      "api/src/realtime/channels.ts",
      "web/src/realtime/useChannel.ts",
    ],
    more: [
      "The server side lives in api/src/realtime and the client hook in web/src/realtime.",
      "Load tested with 2,000 simulated clients on staging.",
      "Events carry a monotonically increasing sequence number per channel.",
      "Channel authorisation reuses the project membership check.",
    ],
    moreFacts: [
      "Sequence numbers per channel",
      "Membership checked on subscribe",
    ],
    templates: [
      {
        type: "tool_use",
        title: "Realtime {C} channel added",
        summary:
          "Added a {C} channel on the realtime server; clients subscribe per project and receive events as JSON frames.",
        facts: ["Channel names are project:{id}:{kind}"],
      },
      {
        type: "pattern",
        title: "useChannel hook wraps subscribe and unsubscribe",
        summary:
          "Components subscribe with useChannel(name, handler); the hook unsubscribes on unmount so views never leak subscriptions.",
        facts: ["useChannel lives in {F}"],
      },
      {
        type: "decision",
        title: "{C} events are not persisted",
        summary:
          "{C} events are fire-and-forget: they are broadcast to connected clients and never stored, so a client that connects later does not see old ones.",
        facts: ["Only durable events go to the database"],
      },
      {
        type: "tool_use",
        title: "Frames are capped at {N} bytes",
        summary:
          "The realtime server rejects frames above {N} bytes with close code 1009 to protect memory.",
        facts: ["Close code 1009: message too big"],
      },
    ],
  },
  caching: {
    concepts: ["caching", "performance"],
    components: [
      "project list",
      "workspace settings",
      "feature toggles",
      "exchange rates",
      "user permissions",
      "pricing table",
    ],
    files: ["api/src/cache/lru.ts", "web/src/queryClient.ts", "api/src/cache/keys.ts"],
    more: [
      "The cache size is bounded so memory stays flat under load.",
      "Entries are versioned, so a deploy that changes the shape starts with a cold cache.",
      "A debug header shows whether a response came from the cache.",
      "The behaviour was verified with the cache disabled by an environment switch.",
    ],
    moreFacts: [
      "Bounded LRU",
      "x-cache debug header in non-production",
    ],
    templates: [
      {
        type: "tool_use",
        title: "{C} cached for {M} minutes",
        summary:
          "The {C} lookup is now cached in the in-process LRU for {M} minutes; it was queried on every request.",
        facts: ["Cache key prefix {C}"],
      },
      {
        type: "pattern",
        title: "Cache keys are built by one helper",
        summary:
          "All cache keys are created by cacheKey(area, ...parts) in keys.ts so the format and versioning stay consistent.",
        facts: ["Keys carry a version suffix"],
      },
      {
        type: "discovery",
        title: "The HTTP cache header for {C} is private",
        summary:
          "Responses for {C} vary per user, so they are sent with Cache-Control: private, max-age=0 and never stored by the CDN.",
        facts: ["CDN respects Cache-Control private"],
      },
      {
        type: "tool_use",
        title: "Metrics for cache hit ratio",
        summary:
          "Added a hit and miss counter per cache area; the dashboard shows the hit ratio for {C} at around {M}0%.",
        facts: ["Counters are exported to Prometheus"],
      },
    ],
  },
  cli: {
    concepts: ["cli"],
    components: ["init", "deploy", "logs", "env", "login", "status", "rollback"],
    files: [
      "cli/src/commands/init.ts",
      "cli/src/commands/logs.ts",
      "cli/src/commands/env.ts",
      "cli/src/index.ts",
    ],
    more: [
      "The command reads defaults from tide.config.json in the project root.",
      "Output goes to stdout and diagnostics to stderr so piping works.",
      "The change is covered by a snapshot test of the command output.",
      "Windows paths are handled by node:path rather than string joins.",
    ],
    moreFacts: [
      "Snapshot-tested output",
      "Reads tide.config.json",
    ],
    templates: [
      {
        type: "tool_use",
        title: "tide {C} gets a --yes flag for scripts",
        summary:
          "tide {C} asks for confirmation interactively; --yes skips the prompt so CI scripts can run it.",
        facts: ["Prompts are skipped automatically when stdin is not a TTY"],
      },
      {
        type: "tool_use",
        title: "tide {C} prints colored output",
        summary: "tide {C} now uses picocolors for status lines and respects NO_COLOR.",
        facts: ["NO_COLOR disables colors"],
      },
      {
        type: "discovery",
        title: "tide login stores the token in the OS keychain",
        summary:
          "The CLI saves its token with keytar in the system keychain; on Linux without a keychain it falls back to a 0600 file in ~/.config/tide.",
        facts: ["Fallback file is ~/.config/tide/token"],
      },
      {
        type: "tool_use",
        title: "tide {C} --help lists examples",
        summary: "Added example invocations to the help text of tide {C}.",
        facts: ["Examples are part of the command definition"],
      },
      {
        type: "tool_use",
        title: "tide logs --follow streams over SSE",
        summary:
          "tide logs --follow keeps the connection open and prints new lines as they arrive; Ctrl-C ends it cleanly.",
        facts: ["Uses the /logs/stream endpoint"],
      },
    ],
  },
  dates: {
    concepts: ["dates", "ui"],
    components: ["activity feed", "invoice list", "calendar view", "comment thread", "audit log"],
    files: [
      "web/src/format/relative.ts",
      "web/src/calendar/Calendar.tsx",
      "web/src/format/dates.ts",
    ],
    more: [
      "Formatting uses Intl.DateTimeFormat with the user's locale.",
      "The {C} gets its dates from the API as ISO strings.",
      "Storybook shows the component in three locales.",
      "Snapshot tests pin the clock with a fake timer.",
    ],
    moreFacts: [
      "Locale-aware formatting",
      "Fake timers in tests",
    ],
    templates: [
      {
        type: "tool_use",
        title: "{C} shows relative times",
        summary:
          "The {C} now shows '3 hours ago' style timestamps with the exact time in a tooltip.",
        facts: ["Relative times refresh every minute"],
      },
      {
        type: "tool_use",
        title: "Calendar week starts on Monday for European locales",
        summary:
          "The calendar view picks the first day of the week from the locale; en-US starts on Sunday, most European locales on Monday.",
        facts: ["Intl.Locale weekInfo is used when available"],
      },
      {
        type: "pattern",
        title: "Timestamps are ISO strings in API responses",
        summary:
          "Every timestamp in the API is an ISO 8601 string with a Z suffix; clients format them for display.",
        facts: ["Never send epoch numbers"],
      },
      {
        type: "tool_use",
        title: "Date range picker presets",
        summary: "The {C} filter has presets: today, last 7 days, last 30 days, this quarter.",
        facts: ["Presets are computed on the client"],
      },
    ],
  },
  payments: {
    concepts: ["payments", "billing"],
    components: ["plan picker", "invoice PDF", "billing page", "seat counter", "trial banner"],
    files: [
      "web/src/billing/BillingPage.tsx",
      "api/src/billing/invoices.ts",
      "api/src/billing/plans.ts",
    ],
    more: [
      "Amounts are integers in the smallest currency unit everywhere.",
      "Stripe test mode keys are used in development and staging.",
      "The billing owner of the workspace is the only role that sees it.",
      "Copy was reviewed by the finance team.",
    ],
    moreFacts: [
      "Amounts in minor units",
      "Visible to billing owners only",
    ],
    templates: [
      {
        type: "tool_use",
        title: "{C} shows prices in the workspace currency",
        summary: "The {C} formats prices with Intl.NumberFormat in the workspace's currency.",
        facts: ["Currency is stored on workspaces.currency"],
      },
      {
        type: "decision",
        title: "Trials last {M} days",
        summary:
          "New workspaces get a {M}-day trial of the Team plan; the trial banner counts down the remaining days.",
        facts: ["Trial length is configurable per plan"],
      },
      {
        type: "tool_use",
        title: "Invoice PDFs rendered with react-pdf",
        summary:
          "Invoices are rendered server side with @react-pdf/renderer and stored in S3; the billing page links to them.",
        facts: ["PDFs are stored under invoices/{workspaceId}/"],
      },
      {
        type: "discovery",
        title: "Seat count updates are prorated by Stripe",
        summary:
          "Changing the number of seats mid-cycle makes Stripe add a prorated line to the next invoice; we do not compute proration ourselves.",
        facts: ["proration_behavior is create_prorations"],
      },
    ],
  },
  search: {
    concepts: ["search"],
    components: ["projects", "people", "files", "comments", "tasks"],
    files: [
      "web/src/search/SearchBox.tsx",
      "api/src/search/query.ts",
      "web/src/search/Highlight.tsx",
    ],
    more: [
      "The search API returns at most 20 results per page.",
      "Queries are logged without personal data for relevance tuning.",
      "Empty queries show recent items instead of nothing.",
      "The UI keeps the last query in the URL so it can be shared.",
    ],
    moreFacts: [
      "20 results per page",
      "Query in the URL",
    ],
    templates: [
      {
        type: "tool_use",
        title: "Search results highlight the matched words",
        summary:
          "Result titles and snippets wrap matched words in <mark>; the highlight uses the ranges returned by the search API.",
        facts: ["Highlight ranges come from the API"],
      },
      {
        type: "tool_use",
        title: "Search can be filtered to {C}",
        summary:
          "Added a type filter so results can be limited to {C}; the filter is kept in the URL.",
        facts: ["?type= parameter"],
      },
      {
        type: "tool_use",
        title: "Keyboard shortcut opens search",
        summary: "Cmd-K or Ctrl-K opens the search palette from anywhere; Escape closes it.",
        facts: ["Shortcut registered globally"],
      },
      {
        type: "discovery",
        title: "Search ignores archived {C}",
        summary: "Archived {C} are excluded from search unless the include-archived toggle is on.",
        facts: ["Toggle persists per user"],
      },
    ],
  },
  uploads: {
    concepts: ["uploads", "files"],
    components: ["attachments", "avatars", "logos", "imports", "exports"],
    files: ["web/src/upload/Dropzone.tsx", "api/src/uploads/scan.ts", "api/src/uploads/types.ts"],
    more: [
      "Uploads go to the tideline-uploads bucket with server-side encryption.",
      "The API records size, type and checksum for every file.",
      "Limits are enforced both in the browser and on the API.",
      "Deleted files are removed from storage by a nightly job.",
    ],
    moreFacts: [
      "SSE-S3 encryption",
      "Checksums stored per file",
    ],
    templates: [
      {
        type: "tool_use",
        title: "Dropzone accepts drag and drop for {C}",
        summary:
          "The {C} area accepts dropped files and shows the allowed types and size while dragging.",
        facts: ["Component lives in {F}"],
      },
      {
        type: "decision",
        title: "Allowed types for {C}",
        summary:
          "{C} accept PNG, JPEG, PDF and plain text; the API checks the magic bytes, not just the extension.",
        facts: ["file-type checks magic bytes"],
      },
      {
        type: "tool_use",
        title: "Uploaded files are virus scanned",
        summary:
          "Every upload is scanned with ClamAV in a background job before it becomes downloadable.",
        facts: ["Files stay in quarantine until scanned"],
      },
      {
        type: "tool_use",
        title: "Downloads use short-lived presigned URLs",
        summary: "Download links for {C} are presigned S3 URLs valid for {M} minutes.",
        facts: ["Links are generated per request"],
      },
    ],
  },
  email: {
    concepts: ["email", "notifications"],
    components: ["welcome", "weekly digest", "invitation", "mention", "invoice receipt"],
    files: [
      "api/emails/welcome.mjml",
      "api/src/notifications/digest.ts",
      "api/src/notifications/prefs.ts",
    ],
    more: [
      "Emails are sent through the notifications service, never directly from route handlers.",
      "Every template has a plain-text part.",
      "Preview text is set explicitly for each template.",
      "Links carry UTM parameters for the product analytics.",
    ],
    moreFacts: [
      "Plain-text part for every template",
      "Sent via the notifications service",
    ],
    templates: [
      {
        type: "tool_use",
        title: "New {C} email template",
        summary:
          "Added the {C} email with a plain-text alternative and a link to notification preferences.",
        facts: ["Template in api/emails"],
      },
      {
        type: "decision",
        title: "Users can mute {C} emails",
        summary: "Notification preferences gained a switch for {C} emails; the default is on.",
        facts: ["Preferences are per workspace"],
      },
      {
        type: "tool_use",
        title: "Weekly digest groups activity by project",
        summary:
          "The weekly digest lists the {M} most active projects with counts of new comments and tasks.",
        facts: ["Sent Mondays at 08:00 local time"],
      },
      {
        type: "tool_use",
        title: "Unsubscribe header on every email",
        summary:
          "Outgoing mails carry List-Unsubscribe and List-Unsubscribe-Post headers for one-click unsubscribe.",
        facts: ["Required by Gmail for bulk senders"],
      },
    ],
  },
  logging: {
    concepts: ["logging", "observability"],
    components: ["checkout", "imports", "webhooks", "auth", "exports"],
    files: ["api/src/logging/logger.ts", "api/src/metrics.ts", "infra/grafana/dashboards.json"],
    more: [
      "Personal data is redacted by a pino serializer before anything is written.",
      "The same fields are used in the web app's browser logging.",
      "Log volume did not change noticeably.",
      "Dashboards and alerts are defined as code in infra/grafana.",
    ],
    moreFacts: [
      "Redacting serializer",
      "Dashboards as code",
    ],
    templates: [
      {
        type: "tool_use",
        title: "Structured log fields for {C}",
        summary:
          "Log lines in the {C} module now include workspace_id and duration_ms as fields instead of interpolated text.",
        facts: ["Fields are queryable in Loki"],
      },
      {
        type: "tool_use",
        title: "Grafana dashboard for {C}",
        summary: "Added a dashboard with request rate, error rate and p95 latency for {C}.",
        facts: ["Dashboard JSON is versioned in infra/grafana"],
      },
      {
        type: "decision",
        title: "Logs are kept for {M}0 days",
        summary:
          "Loki retention is {M}0 days for application logs and 7 days for debug-level logs.",
        facts: ["Debug logs are sampled"],
      },
      {
        type: "tool_use",
        title: "Alert on error rate for {C}",
        summary: "An alert fires when the {C} error rate is above 2% for 10 minutes.",
        facts: ["Alerts go to the on-call channel"],
      },
    ],
  },
  api: {
    concepts: ["api", "http"],
    components: ["projects", "tasks", "comments", "members", "labels", "webhooks"],
    files: [
      "api/src/routes/projects.ts",
      "api/src/routes/tasks.ts",
      "api/openapi.yaml",
      "api/src/http/pagination.ts",
    ],
    more: [
      "The endpoint is covered by contract tests generated from the OpenAPI file.",
      "Clients get a deprecation header before anything is removed.",
      "Permissions are checked by the route wrapper from the workspace membership.",
      "The change is backwards compatible for existing integrations.",
    ],
    moreFacts: [
      "Contract tests from OpenAPI",
      "Backwards compatible",
    ],
    templates: [
      {
        type: "tool_use",
        title: "GET /{C} supports cursor pagination",
        summary:
          "The {C} list endpoint returns next_cursor and accepts ?cursor=; page size defaults to {N}.",
        facts: ["Cursors are opaque base64 strings"],
      },
      {
        type: "tool_use",
        title: "OpenAPI spec updated for {C}",
        summary: "Documented the {C} endpoints in openapi.yaml including error responses.",
        facts: ["Spec is linted with spectral"],
      },
      {
        type: "decision",
        title: "PATCH for partial updates of {C}",
        summary: "Updates to {C} use PATCH with only the changed fields; PUT is not offered.",
        facts: ["Unknown fields are rejected"],
      },
      {
        type: "tool_use",
        title: "Webhook deliveries retried with backoff",
        summary:
          "Outgoing webhooks are retried up to {M} times with exponential backoff and then marked failed.",
        facts: ["Delivery log kept for 30 days"],
      },
      {
        type: "pattern",
        title: "Error responses share one shape",
        summary:
          "API errors are returned as { error: { code, message, details } } with a stable code string.",
        facts: ["Codes are documented in openapi.yaml"],
      },
    ],
  },
  frontend: {
    concepts: ["react", "ui"],
    components: [
      "Sidebar",
      "TaskCard",
      "CommentBox",
      "Modal",
      "Toast",
      "Tabs",
      "Breadcrumbs",
      "DataTable",
    ],
    files: [
      "web/src/ui/Sidebar.tsx",
      "web/src/tasks/TaskCard.tsx",
      "web/src/ui/Modal.tsx",
      "web/src/ui/DataTable.tsx",
    ],
    more: [
      "The component follows the design tokens from packages/ui.",
      "Visual regression snapshots were updated in the same PR.",
      "It works with the reduced-motion preference.",
      "No new dependencies were added.",
    ],
    moreFacts: [
      "Uses design tokens",
      "Visual snapshots updated",
    ],
    templates: [
      {
        type: "tool_use",
        title: "{C} supports keyboard navigation",
        summary: "{C} can now be used with the arrow keys and Enter; focus is visible.",
        facts: ["Focus ring uses the focus-visible selector"],
      },
      {
        type: "tool_use",
        title: "{C} moved to the shared ui package",
        summary: "Moved {C} from the app into packages/ui so the admin can use it too.",
        facts: ["Exported from packages/ui"],
      },
      {
        type: "tool_use",
        title: "Dark mode colors for {C}",
        summary: "{C} uses the theme tokens so it follows dark mode.",
        facts: ["Tokens are CSS variables"],
      },
      {
        type: "discovery",
        title: "{C} re-mounts when its key changes",
        summary:
          "{C} lost its internal state because the parent used the index as key; switched to the item id.",
        facts: ["Keys must be stable ids"],
      },
      {
        type: "tool_use",
        title: "Storybook stories for {C}",
        summary: "Added stories for the default, loading and error states of {C}.",
        facts: ["Stories run in the visual regression job"],
      },
    ],
  },
  tooling: {
    concepts: ["tooling", "dependencies"],
    components: ["eslint", "prettier", "vite", "pnpm", "husky", "renovate"],
    files: [
      "package.json",
      ".eslintrc.cjs",
      "vite.config.ts",
      "renovate.json",
      ".husky/pre-commit",
    ],
    more: [
      "The lockfile diff was reviewed for unexpected transitive changes.",
      "CI, local builds and the Docker image all use the same versions.",
      "The changelog of the new version was skimmed for breaking changes.",
      "Editor settings are shared in .vscode/settings.json.",
    ],
    moreFacts: [
      "Lockfile reviewed",
      "Same versions everywhere",
    ],
    templates: [
      {
        type: "tool_use",
        title: "Bumped {L} to {V}",
        summary: "Upgraded {L} to {V}; no code changes were needed apart from {N} type fixes.",
        facts: ["{L} {V}"],
      },
      {
        type: "tool_use",
        title: "Pre-commit hook runs lint-staged",
        summary:
          "husky runs lint-staged on commit: eslint --fix and prettier on staged files only.",
        facts: ["Hook lives in .husky/pre-commit"],
      },
      {
        type: "decision",
        title: "Renovate groups minor updates weekly",
        summary:
          "Renovate opens one grouped PR for minor and patch updates every Monday; majors get their own PRs.",
        facts: ["Schedule: before 6am on Monday"],
      },
      {
        type: "tool_use",
        title: "Vite dev server proxies /api",
        summary:
          "vite.config proxies /api to localhost:3000 so the app and the API share an origin in development.",
        facts: ["Proxy target localhost:3000"],
      },
    ],
  },
  queues: {
    concepts: ["queues", "jobs"],
    components: ["thumbnail", "digest", "import", "reindex", "cleanup", "invoice"],
    files: ["jobs/src/queues.ts", "jobs/src/import/worker.ts", "jobs/src/cleanup.ts"],
    more: [
      "Workers run in their own deployment, separate from the API.",
      "Job payloads are validated with zod when a worker picks them up.",
      "Metrics per queue show waiting, active and failed counts.",
      "Retries use exponential backoff starting at ten seconds.",
    ],
    moreFacts: [
      "Payloads validated on pickup",
      "Backoff starts at 10 s",
    ],
    templates: [
      {
        type: "tool_use",
        title: "{C} queue added",
        summary:
          "Added the {C} queue and its worker; producers enqueue with a payload of ids only, never whole rows.",
        facts: ["Payloads carry ids only"],
      },
      {
        type: "tool_use",
        title: "Bull Board mounted at /admin/queues",
        summary:
          "The queue dashboard is available to staff at /admin/queues behind the admin session.",
        facts: ["Staff only"],
      },
      {
        type: "decision",
        title: "Failed {C} jobs are kept for {M} days",
        summary:
          "Failed jobs stay in the {C} queue for {M} days for inspection and are then removed.",
        facts: ["removeOnFail age is configured per queue"],
      },
      {
        type: "tool_use",
        title: "{C} job reports progress",
        summary: "The {C} worker calls job.updateProgress so the UI can show a percentage.",
        facts: ["Progress is 0 to 100"],
      },
    ],
  },
  performance: {
    concepts: ["performance"],
    components: [
      "task board",
      "project overview",
      "settings page",
      "search results",
      "comment thread",
    ],
    files: ["web/src/tasks/Board.tsx", "web/src/projects/Overview.tsx", "api/src/tasks/list.ts"],
    more: [
      "Measured with the React profiler and Chrome's performance panel.",
      "The improvement holds on the low-end Android test device.",
      "Bundle size is tracked per PR by the size-limit check.",
      "No behaviour changed for users.",
    ],
    moreFacts: [
      "size-limit check per PR",
      "Profiled before and after",
    ],
    templates: [
      {
        type: "tool_use",
        title: "{C} virtualised with react-window",
        summary:
          "The {C} renders only visible rows with react-window; long lists scroll smoothly again.",
        facts: ["Row height is fixed at 48 px"],
      },
      {
        type: "tool_use",
        title: "Code-split the {C}",
        summary: "The {C} is loaded with React.lazy; the initial bundle shrank by about {N} kB.",
        facts: ["Chunk loaded on first visit"],
      },
      {
        type: "discovery",
        title: "Lighthouse score of the {C} is {M}0",
        summary:
          "Measured the {C} with Lighthouse on a throttled profile; largest contentful paint is the main issue.",
        facts: ["LCP is the hero image"],
      },
      {
        type: "tool_use",
        title: "Gzip replaced by Brotli for static assets",
        summary:
          "The CDN now serves Brotli-compressed JS and CSS; transfer size dropped by about 15%.",
        facts: ["Fallback to gzip for old clients"],
      },
    ],
  },
  deploy: {
    concepts: ["deploy", "infrastructure"],
    components: ["api", "worker", "web", "docs", "admin"],
    files: ["k8s/api.yaml", "k8s/worker.yaml", "infra/main.tf", "fly.toml"],
    more: [
      "Changes are applied through Terraform or the k8s manifests, never by hand.",
      "Rollouts use a rolling update with maxSurge 1.",
      "The runbook in docs/ops was updated.",
      "Costs were checked in the cloud billing console afterwards.",
    ],
    moreFacts: [
      "Rolling updates",
      "Runbook updated",
    ],
    templates: [
      {
        type: "tool_use",
        title: "{C} runs {M} replicas in production",
        summary: "Scaled the {C} deployment to {M} replicas and added a pod disruption budget.",
        facts: ["minAvailable is 1"],
      },
      {
        type: "tool_use",
        title: "Terraform state moved to S3 with locking",
        summary: "Terraform state is stored in S3 with a DynamoDB lock table.",
        facts: ["State bucket is tideline-tfstate"],
      },
      {
        type: "decision",
        title: "Production deploys only during working hours",
        summary:
          "Production deploys are allowed Monday to Thursday between 09:00 and 16:00 unless it is a hotfix.",
        facts: ["Hotfixes are exempt"],
      },
      {
        type: "tool_use",
        title: "Resource requests for the {C} pods",
        summary: "Set CPU and memory requests for {C} based on a week of metrics.",
        facts: ["Requests use the p90 of observed usage"],
      },
    ],
  },
  testing: {
    concepts: ["testing"],
    components: ["tasks", "comments", "billing", "invites", "search", "uploads"],
    files: ["api/test/tasks.test.ts", "e2e/invites.spec.ts", "web/src/test/render.tsx"],
    more: [
      "Tests run in parallel with isolated databases.",
      "The new tests take under two seconds in total.",
      "Fixtures come from the shared factories module.",
      "The suite runs on every pull request.",
    ],
    moreFacts: [
      "Parallel-safe tests",
      "Uses shared factories",
    ],
    templates: [
      {
        type: "tool_use",
        title: "Unit tests for the {C} service",
        summary:
          "Added unit tests for the {C} service covering validation and permission errors; coverage of the module is now {M}0%.",
        facts: ["Tests use the in-memory repository"],
      },
      {
        type: "pattern",
        title: "Tests render components with renderWithProviders",
        summary:
          "Component tests call renderWithProviders, which wraps the query client, router and theme.",
        facts: ["Helper lives in web/src/test/render.tsx"],
      },
      {
        type: "tool_use",
        title: "E2E spec for {C}",
        summary: "Wrote a Playwright spec for the {C} happy path including the empty state.",
        facts: ["Spec uses the seeded workspace"],
      },
      {
        type: "discovery",
        title: "Test factories generate unique emails",
        summary:
          "Factories build emails like user+{n}@example.test so parallel tests never collide on the unique index.",
        facts: ["example.test is reserved"],
      },
    ],
  },
  sessions: {
    concepts: ["session"],
    components: [
      "task board",
      "billing page",
      "onboarding",
      "comments",
      "admin panel",
      "API docs",
      "CLI",
    ],
    files: [
      "web/src/tasks/Board.tsx",
      "web/src/billing/BillingPage.tsx",
      "web/src/onboarding/Steps.tsx",
    ],
    more: [
      "Next step is to get a second review and merge.",
      "Nothing is blocked; follow-ups are in the tracker.",
      "Pairing session with a teammate for part of it.",
      "Notes were added to the PR description.",
    ],
    moreFacts: [
      "Follow-ups in the tracker",
      "PR description updated",
    ],
    templates: [
      {
        type: "session_summary",
        title: "Session: polished the {C}",
        summary:
          "Fixed spacing and empty states on the {C}, addressed review comments and merged the PR.",
        facts: ["PR merged"],
      },
      {
        type: "session_summary",
        title: "Session: refactoring the {C}",
        summary: "Split the {C} into smaller modules and added tests; behaviour is unchanged.",
        facts: ["No behaviour change"],
      },
      {
        type: "session_summary",
        title: "Session: investigated a report about the {C}",
        summary:
          "Could not reproduce the reported problem with the {C}; added logging and asked the customer for a HAR file.",
        facts: ["Waiting for customer details"],
      },
      {
        type: "session_summary",
        title: "Session: dependency upgrades",
        summary:
          "Merged the weekly Renovate PR, upgraded {L} to {V} and fixed the resulting lint warnings.",
        facts: ["{L} {V}"],
      },
    ],
  },
};

const NUMBERS = [3, 5, 7, 12, 20, 25, 40, 50, 64, 100, 120, 250, 500];

function fill(text: string, slots: Record<string, string>): string {
  return text.replace(/\{([A-Z])\}/g, (m, key: string) => slots[key] ?? m);
}

function pascal(text: string): string {
  return text.split(/[\s_-]+/).map((w) => w[0].toUpperCase() + w.slice(1)).join("");
}

function record(
  rng: Rng,
  area: Area,
  template: Area["templates"][number],
  index: number,
): SetRecord {
  const component = rng.pick(area.components);
  const [lib, version] = rng.pick(LIBS);
  const slots = {
    C: component,
    T: component.replaceAll(" ", "_"),
    F: rng.pick(area.files),
    N: String(rng.pick(NUMBERS)),
    M: String(rng.int(2, 9)),
    L: lib,
    V: version,
  };
  // {C} in a title reads better capitalised at the start; "list{C}By" wants PascalCase.
  const summary = [
    fill(template.summary.replace("list{C}By", `list${pascal(slots.T)}By`), slots),
    ...rng.sample(area.more, rng.int(1, 2)).map((m) => fill(m, slots)),
  ].join(" ");
  return {
    key: `gen-${String(index).padStart(3, "0")}`,
    type: template.type,
    days_ago: rng.int(1, 180),
    // Capitalise a title that starts with a component name, but not the command `tide`.
    title: fill(template.title, slots).replace(/^(?!tide )[a-z]/, (c) => c.toUpperCase()),
    summary,
    facts: [...template.facts, ...rng.sample(area.moreFacts, rng.int(1, 2))].map((f) =>
      fill(f, slots)
    ),
    concepts: rng.sample(area.concepts, rng.int(1, Math.min(2, area.concepts.length))),
    files: [slots.F],
  };
}

/** The template distractors: `count` records with distinct titles, from `seed`. */
export function generateDistractors(count: number, options: { seed: number }): SetRecord[] {
  const rng = createRng(options.seed);
  const areas = Object.values(AREAS);
  const out: SetRecord[] = [];
  const titles = new Set<string>();
  for (let attempt = 0; out.length < count && attempt < count * 50; attempt++) {
    const area = areas[attempt % areas.length];
    const candidate = record(rng, area, rng.pick(area.templates), out.length);
    if (titles.has(candidate.title)) continue;
    titles.add(candidate.title);
    out.push(candidate);
  }
  return out;
}

/** Seed and size of the checked-in file. */
export const DISTRACTORS = { count: 440, seed: 20_240_601 } as const;

if (import.meta.main) {
  const lines = generateDistractors(DISTRACTORS.count, { seed: DISTRACTORS.seed })
    .map((r) => JSON.stringify(r));
  const path = new URL("./data/distractors.ndjson", import.meta.url);
  await Deno.writeTextFile(path, lines.join("\n") + "\n");
  console.log(`wrote ${lines.length} records to ${path.pathname}`);
}
