// POST /v1/hooks/claude-code (and Copilot CLI's route) on the real daemon, over TCP and over its
// Unix socket with curl:
// real Claude Code payloads (shims/testdata) become the shim's events, a retry of a firing is one
// event, and bad payloads or headers get a 4xx and store nothing.
import assert from "node:assert/strict";
import {
  HOOK_GIT_CONFIG_QUERY,
  HOOK_HEADERS,
  MCP_NAMESPACE_HEADER,
  ROUTES,
} from "@kiro-learn/core/api/wire";
import { resolveProject } from "@kiro-learn/core/project";
import {
  LEAP_YEAR_TITLE,
  saveLeapYearMemory,
  startTestDaemon,
  type TestDaemon,
} from "../../../tooling/testing/mod.ts";

const ACTOR = "tester";
const TESTDATA = new URL("../../../../shims/testdata/claude_code/", import.meta.url);

async function gitProject(): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "kiro-learn-hooks-" }));
  await Deno.mkdir(`${dir}/.git`);
  // A remote decides the project id (as in most clones): the route must derive it as the shim does.
  await Deno.writeTextFile(`${dir}/.git/config`, GIT_CONFIG);
  await Deno.mkdir(`${dir}/src`);
  return dir;
}

const GIT_CONFIG =
  '[core]\n\tbare = false\n[remote "origin"]\n\turl = git@github.com:acme/shop.git\n';

function payload(name: string, project: string): string {
  return Deno.readTextFileSync(new URL(name, TESTDATA)).replaceAll("${PROJECT}", project);
}

function hookHeaders(project: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    "content-type": "application/json",
    [HOOK_HEADERS.cwd]: project,
    [HOOK_HEADERS.root]: project,
    [HOOK_HEADERS.actor]: ACTOR,
    [HOOK_HEADERS.client]: "test-host",
    ...extra,
  };
}

function postHook(
  daemon: TestDaemon,
  body: string,
  headers: Record<string, string>,
  options: { gitConfig?: string | null } = {},
) {
  const config = options.gitConfig === undefined ? GIT_CONFIG : options.gitConfig;
  const query = config === null ? "" : `?${HOOK_GIT_CONFIG_QUERY}=${encodeURIComponent(config)}`;
  return daemon.fetch(ROUTES.claudeCodeHook + query, { method: "POST", headers, body });
}

async function eventCount(daemon: TestDaemon): Promise<number> {
  const res = await daemon.fetch(`${ROUTES.events}?limit=200`);
  const body = await res.json();
  return body.items.length;
}

async function latestEvents(daemon: TestDaemon) {
  const res = await daemon.fetch(`${ROUTES.events}?limit=200`);
  const body = await res.json();
  return body.items;
}

Deno.test("the hook route records real Claude Code payloads as the shim would", async (t) => {
  await using daemon = await startTestDaemon();
  const project = await gitProject();
  const { namespace } = resolveProject(project, { actor: ACTOR });
  assert.match(namespace, /\/project\/git-[0-9a-f]{64}\/$/, "the remote decides the project id");

  await t.step("PostToolUse: stored in the project, nothing printed", async () => {
    const res = await postHook(daemon, payload("post_tool_use_bash.json", project), {
      ...hookHeaders(project),
    });
    assert.equal(res.status, 200);
    assert.equal(await res.text(), "");
    const [event] = await latestEvents(daemon);
    assert.equal(event.kind, "tool_use");
    assert.equal(event.namespace, namespace);
    assert.equal(event.actor_id, ACTOR);
    assert.equal(event.source.surface, "claude-code");
    assert.equal(event.source.project_path, project);
    assert.equal(event.source.client_id, "test-host");
    assert.equal(event.body.data.tool_name, "Bash");
  });

  await t.step("UserPromptSubmit answers with the injected memory as plain text", async () => {
    await saveLeapYearMemory(daemon, namespace);
    const res = await postHook(daemon, payload("user_prompt_submit.json", project), {
      ...hookHeaders(project),
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/plain/);
    const text = await res.text();
    assert.ok(text.includes(LEAP_YEAR_TITLE), text);
    assert.doesNotMatch(text, /hookSpecificOutput|"retrieval"/);
  });

  await t.step("the same firing posted twice is one event", async () => {
    const before = await eventCount(daemon);
    const headers = hookHeaders(project, { [HOOK_HEADERS.firing]: "1764000000123456789-4242" });
    for (let i = 0; i < 2; i++) {
      const res = await postHook(daemon, payload("stop.json", project), headers);
      assert.equal(res.status, 200, await res.text());
    }
    assert.equal(await eventCount(daemon), before + 1);
    const other = hookHeaders(project, { [HOOK_HEADERS.firing]: "1764000000123456789-4243" });
    const res = await postHook(daemon, payload("stop.json", project), other);
    assert.equal(res.status, 200, await res.text());
    assert.equal(await eventCount(daemon), before + 2, "another firing is another event");
  });

  await t.step("bad payloads and headers: a 4xx that says why, nothing stored", async () => {
    const before = await eventCount(daemon);
    const cases: [string, Record<string, string>, number, RegExp][] = [
      ["{not json", hookHeaders(project), 400, /JSON/i],
      ["[1, 2]", hookHeaders(project), 400, /not a JSON object/],
      ['{"session_id": "s1", "cwd": "/x"}', hookHeaders(project), 400, /hook_event_name/],
      [
        '{"hook_event_name": "Stop", "cwd": "' + project + '"}',
        hookHeaders(project),
        400,
        /session_id/,
      ],
      [payload("stop.json", project), { "content-type": "application/json" }, 400, /X-Kiro/],
      [
        payload("stop.json", project),
        hookHeaders(project, { [HOOK_HEADERS.cwd]: "relative" }),
        400,
        /X-Kiro-Learn-Cwd/,
      ],
      [payload("stop.json", "/somewhere/else"), hookHeaders(project), 409, /project/],
      [
        payload("stop.json", project),
        hookHeaders(`${project}/src`, { [HOOK_HEADERS.root]: "/elsewhere" }),
        409,
        /project/,
      ],
    ];
    for (const [body, headers, status, message] of cases) {
      const res = await postHook(daemon, body, headers);
      const text = await res.text();
      assert.equal(res.status, status, `${body.slice(0, 40)} → ${text}`);
      assert.match(text, message);
    }
    const noConfig = await postHook(daemon, payload("stop.json", project), hookHeaders(project), {
      gitConfig: null,
    });
    assert.equal(noConfig.status, 400);
    assert.match(await noConfig.text(), /gitconfig/);
    const noToken = await fetch(daemon.url + ROUTES.claudeCodeHook, {
      method: "POST",
      headers: hookHeaders(project),
      body: payload("stop.json", project),
    });
    assert.equal(noToken.status, 401);
    await noToken.body?.cancel();
    assert.equal(await eventCount(daemon), before);
  });

  await t.step("the daemon serves the same app on its Unix socket (curl)", async () => {
    const sock = daemon.settings.paths.socket;
    assert.equal((await Deno.stat(sock)).isSocket, true);
    assert.equal((await Deno.stat(sock)).mode! & 0o777, 0o600);
    assert.equal((await Deno.stat(daemon.settings.paths.hookAuth)).mode! & 0o777, 0o600);
    const before = await eventCount(daemon);
    const headers = hookHeaders(project);
    const args = ["--silent", "--show-error", "--fail", "--unix-socket", sock];
    args.push("-H", `@${daemon.settings.paths.hookAuth}`);
    for (const [name, value] of Object.entries(headers)) args.push("-H", `${name}: ${value}`);
    args.push("--url-query", `${HOOK_GIT_CONFIG_QUERY}@${project}/.git/config`);
    args.push("--data-binary", "@-", `${daemon.url}${ROUTES.claudeCodeHook}`);
    const curl = new Deno.Command("curl", { args, stdin: "piped", stdout: "piped" }).spawn();
    const writer = curl.stdin.getWriter();
    await writer.write(new TextEncoder().encode(payload("post_tool_use_failure.json", project)));
    await writer.close();
    const out = await curl.output();
    assert.equal(out.code, 0);
    assert.equal(await eventCount(daemon), before + 1);
  });

  await Deno.remove(project, { recursive: true });
});

Deno.test("the Copilot CLI hook route takes its event from the launcher's header, answers Copilot's JSON", async () => {
  await using daemon = await startTestDaemon();
  const project = await gitProject();
  const namespace = resolveProject(project, { actor: ACTOR }).namespace;
  await saveLeapYearMemory(daemon, namespace);
  const copilot = new URL("../copilot_cli/", TESTDATA);
  const prompt = Deno.readTextFileSync(new URL("user_prompt_submitted.json", copilot))
    .replaceAll("${PROJECT}", project);
  const post = (headers: Record<string, string>) =>
    daemon.fetch(
      `${ROUTES.copilotCliHook}?${HOOK_GIT_CONFIG_QUERY}=${encodeURIComponent(GIT_CONFIG)}`,
      { method: "POST", headers, body: prompt },
    );
  try {
    // Copilot's payloads name no event: without the header, a clear 400 and nothing stored.
    const before = await eventCount(daemon);
    const unnamed = await post(hookHeaders(project));
    assert.equal(unnamed.status, 400);
    assert.match(await unnamed.text(), /X-Kiro-Learn-Event/);
    assert.equal(await eventCount(daemon), before);
    const res = await post(hookHeaders(project, { [HOOK_HEADERS.event]: "userPromptSubmitted" }));
    assert.equal(res.status, 200);
    const printed = await res.json();
    assert.deepEqual(Object.keys(printed), ["additionalContext"]);
    assert.ok(printed.additionalContext.includes(LEAP_YEAR_TITLE));
    const [event] = (await latestEvents(daemon)).filter((e: { kind: string }) =>
      e.kind === "prompt"
    );
    assert.equal(event.source.surface, "copilot-cli");
    assert.equal(event.namespace, namespace);
  } finally {
    await Deno.remove(project, { recursive: true });
  }
});

Deno.test("a stale socket file does not stop the daemon, and a clean stop removes the socket", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "kiro-learn-test-" });
  try {
    // A dead collector's socket: a file of that name that nothing listens on.
    const stale = Deno.listen({ transport: "unix", path: `${dataDir}/collector.sock` });
    stale.close();
    await Deno.writeTextFile(`${dataDir}/collector.sock`, "").catch(() => {});
    {
      await using daemon = await startTestDaemon({ dataDir, keepDataDir: true });
      assert.equal((await Deno.stat(daemon.settings.paths.socket)).isSocket, true);
    }
    await assert.rejects(() => Deno.stat(`${dataDir}/collector.sock`), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("the MCP headers route answers the helper's headers for the launcher's project", async (t) => {
  await using daemon = await startTestDaemon();
  const project = await gitProject();
  const post = (headers: Record<string, string>, options: { gitConfig?: string | null } = {}) => {
    const config = options.gitConfig === undefined ? GIT_CONFIG : options.gitConfig;
    const query = config === null ? "" : `?${HOOK_GIT_CONFIG_QUERY}=${encodeURIComponent(config)}`;
    return daemon.fetch(ROUTES.mcpHeaders + query, { method: "POST", headers });
  };

  await t.step("the namespace resolveProject gives, and the token", async () => {
    const res = await post(hookHeaders(`${project}/src`, { [HOOK_HEADERS.root]: project }));
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {
      [MCP_NAMESPACE_HEADER]: resolveProject(`${project}/src`, { actor: ACTOR }).namespace,
      Authorization: `Bearer ${daemon.token}`,
    });
  });

  await t.step(
    "a folder outside the root, bad headers, no git config: a 4xx that says why",
    async () => {
      const cases: [Record<string, string>, string | null, number, RegExp][] = [
        [hookHeaders("/elsewhere", { [HOOK_HEADERS.root]: project }), GIT_CONFIG, 409, /inside/],
        [hookHeaders(`${project}-x`, { [HOOK_HEADERS.root]: project }), GIT_CONFIG, 409, /inside/],
        [hookHeaders(project, { [HOOK_HEADERS.root]: "relative" }), GIT_CONFIG, 400, /Root/],
        [{ [HOOK_HEADERS.cwd]: project, [HOOK_HEADERS.root]: project }, GIT_CONFIG, 400, /Actor/],
        [hookHeaders(project), null, 400, /gitconfig/],
      ];
      for (const [headers, gitConfig, status, message] of cases) {
        const res = await post(headers, { gitConfig });
        const text = await res.text();
        assert.equal(res.status, status, text);
        assert.match(text, message);
        assert.ok(!text.includes(daemon.token));
      }
    },
  );

  await Deno.remove(project, { recursive: true });
});
