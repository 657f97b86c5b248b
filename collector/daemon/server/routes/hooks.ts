/**
 * `POST /v1/hooks/claude-code`: a Claude Code hook's raw payload, posted by the hook launcher
 * over the collector's Unix socket (its fast path: no Deno process per hook). The collector runs
 * the shim's own plan (`@kiro-learn/core/hooks`), ingests its events through the same pipeline
 * (scrubbed before anything is stored) and answers `text/plain` with exactly what the shim would
 * have printed. Event ids derive from the launcher's firing key, so if this answer comes too late
 * and the launcher hands the payload to the shim, the shim's copy is the same event.
 *
 * What the shim would have read from its own process and disk comes in headers
 * ({@linkcode HOOK_HEADERS}): the collector's sandbox cannot read the project. A payload whose
 * `cwd` is not the launcher's working directory gets 409, so the launcher lets the shim resolve
 * that project itself.
 *
 * @module
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  HOOK_GIT_CONFIG_QUERY,
  HOOK_HEADERS,
  readRetrievalContext,
  ROUTES,
} from "@kiro-learn/core/api/wire";
import {
  claudeCodePlan,
  clientIdFrom,
  hookStdout,
  parseFiring,
  planEvents,
  validSessionId,
} from "@kiro-learn/core/hooks";
import { buildNamespace, projectIdFromGitConfig, sanitizeActor } from "@kiro-learn/core/project";
import { MAX_EVENT_BODY_CHARS, MAX_REQUEST_BYTES } from "@kiro-learn/core/schemas";
import { errorResponse, readJsonBody } from "../../http/mod.ts";
import type { CollectorContext } from "../mod.ts";

/** A path header: absolute, one line. */
const PathHeader = z.string().min(1).max(4096).startsWith("/").regex(/^[^\r\n\0]*$/);

/** The launcher's headers, as the route reads them. */
export const HookHeadersSchema = z.object({
  cwd: PathHeader,
  root: PathHeader,
  actor: z.string().max(1024).regex(/\S/, "the actor must not be blank"),
  client: z.string().max(1024).optional(),
  firing: z.string().max(64).optional(),
});

/** The launcher's headers, validated. */
export type HookHeaders = z.infer<typeof HookHeadersSchema>;

/**
 * A header value as text: curl sends a path's UTF-8 bytes as they are, and the server hands them
 * over one character per byte; null when they are not UTF-8.
 */
export function headerText(value: string | null): string | undefined | null {
  if (value === null) return undefined;
  if ([...value].some((c) => c.charCodeAt(0) > 0xff)) return value;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(
      Uint8Array.from(value, (c) => c.charCodeAt(0)),
    );
  } catch {
    return null;
  }
}

/** Reads and validates the launcher's headers. */
export function readHookHeaders(
  headers: Headers,
): { ok: true; value: HookHeaders } | { ok: false; details: string } {
  const raw: Record<string, string | undefined> = {};
  for (const [key, name] of Object.entries(HOOK_HEADERS)) {
    const text = headerText(headers.get(name));
    if (text === null) return { ok: false, details: `${name} is not UTF-8` };
    raw[key] = text;
  }
  const parsed = HookHeadersSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = HOOK_HEADERS[issue.path[0] as keyof typeof HOOK_HEADERS] ?? "a header";
    return { ok: false, details: `${name}: ${issue.message}` };
  }
  return { ok: true, value: parsed.data };
}

/** Hook routes. */
export function hookRoutes(ctx: CollectorContext): Hono {
  const app = new Hono();
  app.post(ROUTES.claudeCodeHook.slice("/v1".length), async (c) => {
    const headers = readHookHeaders(c.req.raw.headers);
    if (!headers.ok) {
      return errorResponse(400, "bad hook headers", { details: headers.details });
    }
    const body = await readJsonBody(c.req.raw, { maxBytes: MAX_REQUEST_BYTES });
    if (!body.ok) return body.response;
    const payload = body.value;
    if (payload === null || typeof payload !== "object" || Array.isArray(payload)) {
      return errorResponse(400, "hook payload is not a JSON object", {
        details: "post the JSON object Claude Code hands the hook on stdin",
      });
    }
    const fields = payload as Record<string, unknown>;
    if (typeof fields.hook_event_name !== "string" || fields.hook_event_name.trim() === "") {
      return errorResponse(400, "hook payload has no hook_event_name", {
        details: "post the JSON object Claude Code hands the hook on stdin",
      });
    }
    if (validSessionId(fields.session_id) === null) {
      return errorResponse(400, "hook payload has no usable session_id", {
        details: "the shim derives one from its process; run the hook through the shim",
      });
    }
    const { cwd, root, actor, client, firing } = headers.value;
    const plan = claudeCodePlan(fields, {
      fallbackSessionId: () => "",
      fallbackCwd: () => cwd,
    });
    if (plan === null) return c.text("");
    // The launcher found the root from the physical working directory; a path through a symlink
    // (or a payload about another folder) is left to the shim, which resolves it itself.
    if (plan.cwd !== cwd || (cwd !== root && !cwd.startsWith(root.replace(/\/$/, "") + "/"))) {
      return errorResponse(409, "the hook's project is not the one the launcher found", {
        details: "the payload's cwd must be the launcher's working directory, inside the root; " +
          "run the hook through the shim",
      });
    }
    const gitConfig = c.req.query(HOOK_GIT_CONFIG_QUERY);
    if (gitConfig === undefined) {
      return errorResponse(400, `the hook sent no ${HOOK_GIT_CONFIG_QUERY} query`, {
        details: "the project id comes from the repository's remote: send its git config file " +
          `(curl --url-query "${HOOK_GIT_CONFIG_QUERY}@<root>/.git/config"), or run the shim`,
      });
    }
    const namespaceActor = sanitizeActor(actor);
    const projectId = projectIdFromGitConfig(gitConfig, root);
    const deliveries = await planEvents(plan, {
      project: () => ({ root, namespace: buildNamespace(namespaceActor, projectId) }),
      actor: namespaceActor,
      clientId: clientIdFrom(client),
      maxBodyBytes: Math.min(ctx.settings.shim.maxBodyBytes, MAX_EVENT_BODY_CHARS),
      firing: parseFiring(firing),
    });
    const contexts: string[] = [];
    for (const [i, delivery] of deliveries.entries()) {
      const outcome = await ctx.pipeline.ingest(delivery.event, {
        retrieve: delivery.query === "retrieve",
        resume: delivery.query === "resume",
      });
      if (!outcome.ok) return errorResponse(400, outcome.error, { details: outcome.details });
      if (plan.events[i].print) {
        contexts.push(readRetrievalContext({ retrieval: outcome.retrieval }) ?? "");
      }
    }
    return c.text(hookStdout(contexts));
  });
  return app;
}
