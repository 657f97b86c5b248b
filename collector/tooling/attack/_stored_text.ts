/**
 * Attacks on what the memory keeps: content that must be gone after `forget --with-sources`
 * (every copy and derivative, searched for in every byte of the data dir), and stored text that
 * carries terminal escape sequences to the CLI's output.
 *
 * @module
 */
import { ROUTES } from "@kiro-learn/core/api";
import { makeEvent, makeRecord } from "@kiro-learn/core/testing";
import { makeProject, runShimProcess } from "@kiro-learn/shims/testing";
import {
  postJson,
  processText,
  runKiroLearn,
  secretsOnDisk,
  startTestDaemon,
  type TestDaemon,
} from "../testing/mod.ts";
import { type AttackFigure, Tally } from "./_figure.ts";

function namespace(): string {
  const project = [...crypto.getRandomValues(new Uint8Array(32))]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  return `/actor/tester/project/${project}/`;
}

async function ok(res: Promise<Response>, what: string): Promise<void> {
  const answer = await res;
  const text = await answer.text();
  if (!answer.ok) throw new Error(`${what}: ${answer.status} ${text}`);
}

async function retrievalsHold(daemon: TestDaemon, ns: string, probe: string): Promise<boolean> {
  const res = await daemon.fetch(`/v1/retrievals?namespace=${encodeURIComponent(ns)}&limit=100`);
  return (await res.text()).includes(probe);
}

/**
 * A prompt is stored and asks for a retrieval; a record made from it is forgotten with its
 * sources by the real CLI. Nothing of the prompt may be left: not in `GET /v1/retrievals`
 * (the viewer's injections page), not after a restart, not in any byte of the data dir after a
 * SIGKILL (the WAL as a crash leaves it) or a clean stop.
 */
export async function forgetLeavesNothing(): Promise<AttackFigure> {
  const tally = new Tally();
  await using daemon = await startTestDaemon();
  const ns = namespace();
  const marker = crypto.randomUUID().replaceAll("-", "");
  const prompt = `why does the deploy of quokkaplinth${marker} fail on friday`;
  const record = `quokkaplinth${marker} deploys need the staging flag`;
  const event = makeEvent({ namespace: ns, body: { type: "text", content: prompt } });
  const memory = makeRecord({
    namespace: ns,
    title: "Deploys need the staging flag",
    summary: record,
    source_event_ids: [event.event_id],
  });
  await ok(postJson(daemon, ROUTES.memories, memory), "storing the record");
  await ok(postJson(daemon, `${ROUTES.events}?retrieve=true`, event), "storing the prompt");
  tally.check(
    await retrievalsHold(daemon, ns, marker),
    "the prompt's retrieval was never logged: the attack proves nothing",
  );
  const out = await runKiroLearn(["forget", memory.record_id, "--with-sources"], {
    env: daemon.env,
  });
  tally.check(out.code === 0, `forget failed: ${processText(out)}`);
  const probes = [{ kind: "prompt", secret: prompt }, { kind: "record", secret: record }];
  const where = (found: { file: string; kind: string }[]) =>
    found.map((f) => `${f.kind} in ${f.file}`).join(", ");
  const api = !await retrievalsHold(daemon, ns, marker);
  tally.add(api, api ? "API clean" : "API served it", "GET /v1/retrievals still shows the prompt");
  await daemon.kill();
  const afterKill = await secretsOnDisk(daemon.dataDir, probes);
  tally.add(
    afterKill.length === 0,
    afterKill.length === 0 ? "disk clean" : "on disk",
    `after a SIGKILL: ${where(afterKill)}`,
  );
  await daemon.restart();
  const restarted = !await retrievalsHold(daemon, ns, marker);
  tally.add(
    restarted,
    restarted ? "API clean" : "API served it",
    "after a restart GET /v1/retrievals shows the prompt",
  );
  await daemon.stop();
  const afterStop = await secretsOnDisk(daemon.dataDir, probes);
  tally.add(
    afterStop.length === 0,
    afterStop.length === 0 ? "disk clean" : "on disk",
    `after a clean stop: ${where(afterStop)}`,
  );
  return tally.figure(
    "forget --with-sources: the prompt and the record, API and every byte of the data dir",
    `${afterKill.length + afterStop.length} copies left on disk`,
  );
}

/** Escape sequences an agent's output or a tool's can hold, each doing something to a terminal. */
const ESCAPES = [
  "\x1b]0;kiro-learn was here\x07", // OSC 0: the window title
  "\x1b[2J\x1b[H", // CSI 2J: clear the screen
  "\x1b]52;c;cm0gLXJmIH4K\x07", // OSC 52: write the clipboard
  "\u009b31m", // C1 CSI
  "\rhidden\b\x7f",
];

// deno-lint-ignore no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/**
 * A Claude Code `Stop` hook whose last assistant message holds the escape sequences, run as the
 * real hook process in a project, then extracted (heuristics) into a memory; returns the project.
 */
async function escapesThroughTheHook(daemon: TestDaemon, hostile: string): Promise<string> {
  const project = await makeProject();
  const payload = {
    session_id: crypto.randomUUID(),
    transcript_path: "",
    cwd: project,
    hook_event_name: "Stop",
    stop_hook_active: false,
    last_assistant_message: `Flaky deploy fixed: the staging flag was missing. ${hostile}`,
  };
  const run = await runShimProcess("claude-code", {
    settings: daemon.settings,
    env: daemon.env,
    cwd: project,
    stdin: JSON.stringify(payload),
  });
  if (run.code !== 0) throw new Error(`the Stop hook failed: ${run.stderr}`);
  const stats = await (await daemon.fetch(ROUTES.stats)).json();
  for (const p of stats.projects ?? []) {
    const id = String(p.namespace).split("/")[4];
    const res = await daemon.fetch(`/v1/extraction/flush?project_id=${id}`, { method: "POST" });
    await res.body?.cancel();
  }
  return project;
}

/**
 * Stored text with terminal escape sequences in every field (through the API, and through a
 * Claude Code `Stop` hook's message made into a memory); the real CLI prints it (search, as text
 * and JSON, and status). No control character may reach the terminal raw, and the API keeps none
 * in a title.
 */
export async function escapesToTheTerminal(): Promise<AttackFigure> {
  const tally = new Tally();
  await using daemon = await startTestDaemon({
    settings: { extraction: { strategy: "heuristic" } },
  });
  const ns = namespace();
  const hostile = ESCAPES.join(" ");
  const memory = makeRecord({
    namespace: ns,
    title: `Flaky deploy ${hostile}`,
    summary: `flaky deploy ${hostile}`,
    facts: [`fact ${hostile}`],
    files_touched: [`src/${hostile}.ts`],
  });
  await ok(postJson(daemon, ROUTES.memories, memory), "storing the record");
  const event = makeEvent({
    namespace: ns,
    body: { type: "text", content: `flaky deploy ${hostile}` },
    source: {
      surface: "kiro-cli",
      version: "0.1.0",
      client_id: "host",
      project_path: `/tmp/${hostile}`,
    },
  });
  await ok(postJson(daemon, ROUTES.events, event), "storing the event");
  const stored = await (await daemon.fetch(`${ROUTES.memories}/${memory.record_id}`)).json();
  const title = String(stored.record?.title ?? stored.title ?? "");
  tally.add(
    !RAW_CONTROL.test(title) && title.length > 0,
    RAW_CONTROL.test(title) ? "title kept controls" : "title plain",
    `the API stored the title with its controls: ${JSON.stringify(title)}`,
  );
  const project = await escapesThroughTheHook(daemon, hostile);
  try {
    const commands = [
      ["search", "flaky", "deploy", "--namespace", ns],
      ["search", "flaky", "deploy", "--namespace", ns, "--json"],
      ["search", "staging", "flag", "--project", project],
      ["status"],
    ];
    const outputs: string[] = [];
    for (const args of commands) {
      const out = await runKiroLearn(args, { env: daemon.env });
      const text = processText(out);
      outputs.push(text);
      if (args.includes("--json")) {
        const parsed = (() => {
          try {
            return JSON.parse(new TextDecoder().decode(out.stdout));
          } catch {
            return null;
          }
        })();
        tally.check(Array.isArray(parsed), "search --json printed invalid JSON");
      }
      const raw = RAW_CONTROL.exec(text);
      tally.add(
        out.code === 0 && raw === null,
        raw === null ? "escaped" : "raw controls",
        `kiro-learn ${args.join(" ")} ` +
          (raw === null ? `exited ${out.code}` : `printed ${JSON.stringify(raw[0])} raw`),
      );
    }
    tally.check(
      outputs[0].includes("Flaky deploy"),
      "search did not show the record: proves nothing",
    );
    tally.check(
      /staging flag/i.test(outputs[2]),
      `the Stop hook's message did not become a memory search finds: proves nothing (${
        outputs[2]
      })`,
    );
    return tally.figure(
      `stored escape sequences (OSC 0, CSI 2J, OSC 52, C1 CSI, CR) through the API and a Stop ` +
        `hook, to the CLI: ${commands.length} commands, the API's title`,
      "no control character printed raw",
    );
  } finally {
    await Deno.remove(project, { recursive: true });
  }
}
