/**
 * `POST /v1/hooks/<agent>` (`claude-code`, `codex`, `gemini-cli`, `copilot-cli`: `HOOK_ROUTES`): an agent hook's
 * raw payload, posted by the hook launcher over the collector's Unix socket (its fast path: no
 * Deno process per hook). The collector runs that agent's shim plan (`HOOK_AGENTS` in
 * `@kiro-learn/core/hooks`), ingests its events through the same pipeline (scrubbed before
 * anything is stored) and answers with exactly what the shim would have printed, in the agent's
 * format (Gemini CLI: one JSON object). Event ids derive from the launcher's firing key, so if this answer comes too late
 * and the launcher hands the payload to the shim, the shim's copy is the same event.
 *
 * What the shim would have read from its own process and disk comes in headers
 * ({@linkcode HOOK_HEADERS}): the collector's sandbox cannot read the project. A payload whose
 * `cwd` is not the launcher's working directory gets 409, so the launcher lets the shim resolve
 * that project itself.
 *
 * `POST /v1/mcp/headers`: the same launcher headers and git config, from Claude Code's MCP
 * headers helper on its own fast path; answers the headers that helper prints (the project's
 * namespace and the bearer token), derived exactly as a hook's project is.
 *
 * @module
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  HOOK_GIT_CONFIG_QUERY,
  HOOK_HEADERS,
  HOOK_ROUTES,
  MCP_NAMESPACE_HEADER,
  readRetrievalContext,
  ROUTES,
} from "@kiro-learn/core/api/wire";
import {
  clientIdFrom,
  type FastPathSurface,
  HOOK_AGENTS,
  type HookAgent,
  hookBodyCap,
  hookStdout,
  parseFiring,
  planEvents,
  validSessionId,
} from "@kiro-learn/core/hooks";
import { buildNamespace, projectIdFromGitConfig, sanitizeActor } from "@kiro-learn/core/project";
import { isInside } from "@kiro-learn/core/path";
import { MAX_REQUEST_BYTES } from "@kiro-learn/core/schemas";
import { checkBearer, errorResponse, readJsonBody } from "../../http/mod.ts";
import { ingestOptions } from "../../ingest/mod.ts";
import type { CollectorContext } from "../mod.ts";

/** A path header: absolute, one line. */
const PathHeader = z.string().min(1).max(4096).startsWith("/").regex(/^[^\r\n\0]*$/);

/** What a caller that posted something other than a hook payload should post. */
const PAYLOAD_DETAILS = "post the JSON object the agent hands the hook on stdin";

/** The launcher's headers, as the route reads them. */
const HookHeadersSchema = z.object({
  cwd: PathHeader,
  root: PathHeader,
  actor: z.string().max(1024).regex(/\S/, "the actor must not be blank"),
  client: z.string().max(1024).optional(),
  firing: z.string().max(64).optional(),
  event: z.string().max(64).optional(),
});

/** The launcher's headers, validated. */
type HookHeaders = z.infer<typeof HookHeadersSchema>;

/**
 * A header value as text: curl sends a path's UTF-8 bytes as they are, and the server hands them
 * over one character per byte; null when they are not UTF-8.
 */
function headerText(value: string | null): string | undefined | null {
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
function readHookHeaders(
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
  for (const [surface, route] of Object.entries(HOOK_ROUTES) as [FastPathSurface, string][]) {
    app.post(route.slice("/v1".length), (c) =>
      hookFiring(ctx, c.req.raw, {
        agent: HOOK_AGENTS[surface],
        gitConfig: c.req.query(HOOK_GIT_CONFIG_QUERY),
      }));
  }
  app.post(ROUTES.mcpHeaders.slice("/v1".length), (c) => {
    // The /v1 guard also lets the viewer's session cookie through; the token is only ever handed
    // to a caller that already holds it (the launcher, with the data dir's header file).
    const refused = checkBearer(c.req.raw, ctx.token);
    if (refused) return refused;
    const headers = readHookHeaders(c.req.raw.headers);
    if (!headers.ok) {
      return errorResponse(400, "bad launcher headers", { details: headers.details });
    }
    const { cwd, root } = headers.value;
    if (!isInside(cwd, root)) {
      return errorResponse(409, "the agent's folder is not inside the root the launcher found", {
        details: "send the agent's physical folder and the nearest folder above it holding " +
          ".git; or run the Deno headers helper",
      });
    }
    const project = launcherProject(headers.value, c.req.query(HOOK_GIT_CONFIG_QUERY));
    if (!project.ok) return project.response;
    // The helper's own output: the namespace first, then the token (shims/mcp_headers.ts).
    return c.json({
      [MCP_NAMESPACE_HEADER]: project.namespace,
      Authorization: `Bearer ${ctx.token}`,
    });
  });
  return app;
}

/**
 * The project a launcher's headers and git config name, as `resolveProject` derives it when a
 * `.git` folder at `root` decides it: one derivation for the hooks and the MCP headers.
 */
function launcherProject(
  headers: HookHeaders,
  gitConfig: string | undefined,
): { ok: true; actor: string; namespace: string } | { ok: false; response: Response } {
  if (gitConfig === undefined) {
    return {
      ok: false,
      response: errorResponse(400, `the launcher sent no ${HOOK_GIT_CONFIG_QUERY} query`, {
        details: "the project id comes from the repository's remote: send its git config file " +
          `(curl --url-query "${HOOK_GIT_CONFIG_QUERY}@<root>/.git/config"), or run the shim`,
      }),
    };
  }
  const actor = sanitizeActor(headers.actor);
  const namespace = buildNamespace(actor, projectIdFromGitConfig(gitConfig, headers.root));
  return { ok: true, actor, namespace };
}

/**
 * One hook firing on the fast path: the agent's own plan of the raw payload, its events ingested
 * through the pipeline, and what the agent's hook prints as the answer.
 */
async function hookFiring(
  ctx: CollectorContext,
  request: Request,
  options: { agent: HookAgent; gitConfig: string | undefined },
): Promise<Response> {
  const agent = options.agent;
  const headers = readHookHeaders(request.headers);
  if (!headers.ok) {
    return errorResponse(400, "bad hook headers", { details: headers.details });
  }
  const body = await readJsonBody(request, { maxBytes: MAX_REQUEST_BYTES });
  if (!body.ok) return body.response;
  const payload = body.value;
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) {
    return errorResponse(400, "hook payload is not a JSON object", {
      details: PAYLOAD_DETAILS,
    });
  }
  const fields = payload as Record<string, unknown>;
  const { cwd, root, client, firing, event } = headers.value;
  // Copilot CLI's payloads name no event: the hook command does, and the launcher sends it.
  const named = agent.eventFrom === "argument" ? event : fields.hook_event_name;
  if (typeof named !== "string" || named.trim() === "") {
    return agent.eventFrom === "argument"
      ? errorResponse(400, `the launcher sent no ${HOOK_HEADERS.event} header`, {
        details: "send the event the hook command names (its first argument), or run the shim",
      })
      : errorResponse(400, "hook payload has no hook_event_name", { details: PAYLOAD_DETAILS });
  }
  if (validSessionId(fields[agent.sessionField]) === null) {
    return errorResponse(400, `hook payload has no usable ${agent.sessionField}`, {
      details: "the shim derives one from its process; run the hook through the shim",
    });
  }
  const plan = agent.plan(fields, {
    fallbackSessionId: () => "",
    fallbackCwd: () => cwd,
    event: named,
  });
  if (plan === null) return answer(agent, null, "");
  // The launcher found the root from the physical working directory; a path through a symlink
  // (or a payload about another folder) is left to the shim, which resolves it itself.
  if (plan.cwd !== cwd || !isInside(cwd, root)) {
    return errorResponse(409, "the hook's project is not the one the launcher found", {
      details: "the payload's cwd must be the launcher's working directory, inside the root; " +
        "run the hook through the shim",
    });
  }
  const project = launcherProject(headers.value, options.gitConfig);
  if (!project.ok) return project.response;
  const deliveries = await planEvents(plan, {
    project: () => ({ root, namespace: project.namespace }),
    actor: project.actor,
    clientId: clientIdFrom(client),
    maxBodyBytes: hookBodyCap(ctx.settings.shim.maxBodyBytes),
    firing: parseFiring(firing),
  });
  const contexts: string[] = [];
  for (const [i, delivery] of deliveries.entries()) {
    const outcome = await ctx.pipeline.ingest(delivery.event, ingestOptions(delivery.query));
    if (!outcome.ok) return errorResponse(400, outcome.error, { details: outcome.details });
    if (plan.events[i].print) {
      contexts.push(readRetrievalContext({ retrieval: outcome.retrieval }) ?? "");
    }
  }
  return answer(agent, plan.hook, hookStdout(contexts));
}

/** What the launcher prints, as the agent's hook would print it. */
function answer(agent: HookAgent, hook: string | null, context: string): Response {
  return new Response(agent.output(hook, context), {
    headers: { "content-type": "text/plain; charset=utf-8" },
  });
}
