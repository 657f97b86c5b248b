/**
 * The secret corpus through every way into the real collector, one fresh data dir per channel so
 * a leak is pinned to the way it came in. After each channel, what the collector answers (the
 * events, memories and retrievals it lists, what a hook printed to the agent) is read back, and
 * every byte of the data dir is searched twice: after a SIGKILL (the WAL as the crash left it)
 * and after a clean stop (the database checkpointed).
 *
 * @module
 */
import { resolveProject } from "@kiro-learn/core/project";
import { newEventId } from "@kiro-learn/core/ids";
import { makeEvent, makeRecord } from "@kiro-learn/core/testing";
import { makeProject, runShimProcess, spoolFiles } from "@kiro-learn/shims/testing";
import corpus from "../../../core/privacy/testdata/secrets_corpus.json" with { type: "json" };
import {
  connectMcp,
  postJson,
  processText,
  runKiroLearn,
  secretsOnDisk,
  startTestDaemon,
  type TestDaemon,
} from "../testing/mod.ts";

/** One entry of the corpus: a secret, its kind, and the realistic text that carries it. */
export interface CorpusEntry {
  /** The kind of secret. */
  kind: string;
  /** The secret itself (what must never be found). */
  secret: string;
  /** The text a user or a tool would produce around it. */
  text: string;
}

/** The corpus (`core/privacy/testdata/secrets_corpus.json`). */
export const SECRET_CORPUS: readonly CorpusEntry[] = corpus;

/** What one channel let through. */
export interface ChannelFigure {
  /** The way in. */
  channel: string;
  /** Secrets sent through it. */
  tried: number;
  /** What it stored: events and memories (for the spool, its files), so tries are real. */
  stored: number;
  /** Secrets found afterwards: on disk, or in what the collector or a client answered. */
  leaked: number;
  /** Bytes of the data dir searched (both passes). */
  bytesSearched: number;
  /** Where each leak was found (`place: kind`). */
  where: string[];
}

/** A project and a data dir for one channel, with the collector running. */
interface Bench {
  daemon: TestDaemon;
  project: string;
  namespace: string;
  /** Texts the clients showed (hook stdout, CLI output, MCP replies): searched too. */
  shown: string[];
}

async function bench(): Promise<Bench> {
  const daemon = await startTestDaemon({ keepDataDir: true });
  const project = await makeProject();
  return { daemon, project, namespace: resolveProject(project).namespace, shown: [] };
}

function found(text: string, entries: readonly CorpusEntry[]): CorpusEntry[] {
  return entries.filter((e) => text.includes(e.secret));
}

async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) total += await dirBytes(path);
    else if (entry.isFile) total += (await Deno.stat(path)).size;
  }
  return total;
}

/** Reads everything back, searches the disk after a SIGKILL and after a clean stop, cleans up. */
async function verdict(b: Bench, channel: string): Promise<ChannelFigure> {
  const leaks = new Leaks();
  const api = [
    "/v1/events?limit=200",
    `/v1/memories?limit=500&namespace=${encodeURIComponent(b.namespace)}`,
    "/v1/memories?limit=500",
    "/v1/retrievals?limit=200",
  ];
  const stats = await (await b.daemon.fetch("/v1/stats")).json();
  const stored = stats.total_events + stats.total_memories;
  for (const path of api) {
    const text = await (await b.daemon.fetch(path)).text();
    leaks.add(`GET ${path.split("?")[0]}`, found(text, SECRET_CORPUS));
  }
  leaks.add("shown to the user or agent", found(b.shown.join("\n"), SECRET_CORPUS));
  let bytesSearched = 0;
  for (const pass of ["after SIGKILL", "after a clean stop"]) {
    if (pass === "after SIGKILL") await b.daemon.kill();
    else {
      await b.daemon.restart();
      await b.daemon.stop();
    }
    bytesSearched += await dirBytes(b.daemon.dataDir);
    for (const f of await secretsOnDisk(b.daemon.dataDir, SECRET_CORPUS)) {
      leaks.add(`${f.file} (${pass})`, [f]);
    }
  }
  await Deno.remove(b.daemon.dataDir, { recursive: true });
  await Deno.remove(b.project, { recursive: true });
  return leaks.figure(channel, { bytesSearched, stored });
}

/** Leaks found, by secret and by place. */
class Leaks {
  #secrets = new Set<string>();
  #where = new Set<string>();
  add(place: string, entries: readonly { kind: string; secret: string }[]): void {
    for (const e of entries) {
      this.#secrets.add(e.secret);
      this.#where.add(`${place}: ${e.kind}`);
    }
  }
  figure(channel: string, counts: { bytesSearched: number; stored: number }): ChannelFigure {
    return {
      channel,
      tried: SECRET_CORPUS.length,
      stored: counts.stored,
      leaked: this.#secrets.size,
      bytesSearched: counts.bytesSearched,
      where: [...this.#where],
    };
  }
}

async function ok(res: Promise<Response>, what: string): Promise<void> {
  const r = await res;
  const text = await r.text();
  if (!r.ok) throw new Error(`${what}: ${r.status} ${text}`);
}

/** Runs `fn` over `items`, `width` at a time. */
async function pool<T>(items: readonly T[], width: number, fn: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

function hookPayload(entry: CorpusEntry, cwd: string, i: number): string {
  return JSON.stringify({
    session_id: `attack-${i}`,
    transcript_path: "/tmp/none.jsonl",
    cwd,
    hook_event_name: "UserPromptSubmit",
    prompt: entry.text,
  });
}

async function runHooks(b: Bench, options: { shown: boolean }): Promise<void> {
  await pool(SECRET_CORPUS.map((e, i) => [e, i] as const), 3, async ([entry, i]) => {
    const run = await runShimProcess("claude-code", {
      settings: b.daemon.settings,
      env: b.daemon.env,
      cwd: b.project,
      stdin: hookPayload(entry, b.project, i),
    });
    if (run.code !== 0) throw new Error(`the hook failed (${run.code}): ${run.stderr}`);
    if (options.shown) b.shown.push(run.stdout, run.stderr);
  });
}

function record(b: Bench, entry: CorpusEntry) {
  return makeRecord({
    namespace: b.namespace,
    strategy: "mcp_observation",
    title: `note ${entry.kind}`,
    summary: entry.text,
    facts: [entry.text],
  });
}

/** The channels, in order; each gets a fresh collector. */
const CHANNELS: {
  name: string;
  /** Feeds the corpus in; may answer figures of its own taken on the way (the spool's). */
  run: (b: Bench) => Promise<ChannelFigure[] | void>;
}[] = [
  {
    name: "API: POST /v1/events",
    async run(b) {
      for (const entry of SECRET_CORPUS) {
        const event = makeEvent({
          namespace: b.namespace,
          body: { type: "text", content: entry.text },
        });
        await ok(postJson(b.daemon, "/v1/events", event), "POST /v1/events");
      }
    },
  },
  {
    name: "API: POST /v1/memories",
    async run(b) {
      for (const entry of SECRET_CORPUS) {
        await ok(postJson(b.daemon, "/v1/memories", record(b, entry)), "POST /v1/memories");
      }
    },
  },
  {
    name: "API: retrieval and search queries",
    async run(b) {
      // Something to find, so the queries are searched and logged as a user's would be.
      await ok(
        postJson(b.daemon, "/v1/memories", makeRecord({ namespace: b.namespace })),
        "POST /v1/memories",
      );
      for (const entry of SECRET_CORPUS) {
        const prompt = makeEvent({
          event_id: newEventId(),
          namespace: b.namespace,
          body: { type: "text", content: entry.text },
        });
        const res = await postJson(b.daemon, "/v1/events?retrieve=true", prompt);
        b.shown.push(await res.text());
        const params = new URLSearchParams({ namespace: b.namespace, query: entry.text });
        b.shown.push(await (await b.daemon.fetch(`/v1/memories/search?${params}`)).text());
      }
    },
  },
  {
    name: "Claude Code hook, collector up",
    run: (b) => runHooks(b, { shown: true }),
  },
  {
    name: "spool drain",
    async run(b) {
      // The hooks spool while the collector is down: the spool is searched then, on its own,
      // as the figure of that way in; the restart drains it, which is this channel.
      await b.daemon.kill();
      await runHooks(b, { shown: true });
      const leaks = new Leaks();
      leaks.add("shown to the agent", found(b.shown.join("\n"), SECRET_CORPUS));
      const spool = b.daemon.settings.paths.spool;
      for (const f of await secretsOnDisk(spool, SECRET_CORPUS)) leaks.add(`spool/${f.file}`, [f]);
      const spooled = leaks.figure("Claude Code hook, collector down (spool)", {
        bytesSearched: await dirBytes(spool),
        stored: spoolFiles(spool).length,
      });
      await b.daemon.restart();
      return [spooled];
    },
  },
  {
    name: "MCP save_observation (SDK client, real server)",
    async run(b) {
      await using mcp = await connectMcp({
        port: b.daemon.port,
        env: b.daemon.env,
        cwd: b.project,
      });
      for (const entry of SECRET_CORPUS) {
        const reply = await mcp.call("save_observation", {
          title: `note ${entry.kind}`,
          summary: entry.text,
          facts: [entry.text],
          observation_type: "discovery",
        });
        if (reply.isError) throw new Error(`save_observation: ${reply.text}`);
        b.shown.push(reply.text);
      }
      b.shown.push(mcp.stderr());
    },
  },
  {
    name: "MCP search_memory (SDK client, real server)",
    async run(b) {
      await ok(
        postJson(b.daemon, "/v1/memories", makeRecord({ namespace: b.namespace })),
        "POST /v1/memories",
      );
      await using mcp = await connectMcp({
        port: b.daemon.port,
        env: b.daemon.env,
        cwd: b.project,
      });
      for (const entry of SECRET_CORPUS) {
        const reply = await mcp.call("search_memory", { query: entry.text.slice(0, 1000) });
        if (reply.isError) throw new Error(`search_memory: ${reply.text}`);
        b.shown.push(reply.text);
      }
      b.shown.push(mcp.stderr());
    },
  },
  {
    name: "kiro-learn import git",
    async run(b) {
      // One commit per entry, its message carrying the text: written by `git fast-import`.
      let stream = "";
      const when = 1_700_000_000;
      SECRET_CORPUS.forEach((entry, i) => {
        const message = new TextEncoder().encode(`fix: handle ${entry.kind}\n\n${entry.text}\n`);
        const file = `file ${i}\n`;
        stream += `commit refs/heads/main\nmark :${i + 1}\n` +
          `committer T <t@example.com> ${when + i * 60} +0000\n` +
          `data ${message.length}\n${new TextDecoder().decode(message)}\n` +
          (i > 0 ? `from :${i}\n` : "") +
          `M 644 inline src/f${i}.ts\ndata ${file.length}\n${file}\n`;
      });
      const git = (args: string[], stdin?: string) => {
        const child = new Deno.Command("git", {
          args: ["-C", b.project, ...args],
          stdin: stdin === undefined ? "null" : "piped",
          stdout: "null",
          stderr: "piped",
        }).spawn();
        if (stdin !== undefined) {
          const writer = child.stdin.getWriter();
          writer.write(new TextEncoder().encode(stdin)).then(() => writer.close());
        }
        return child.output();
      };
      await git(["init", "-q", "-b", "main"]);
      const imported = await git(["fast-import", "--quiet"], stream);
      if (imported.code !== 0) throw new Error(new TextDecoder().decode(imported.stderr));
      await git(["checkout", "-q", "main"]);
      const out = await runKiroLearn(["import", "git", b.project], { env: b.daemon.env });
      b.shown.push(processText(out));
      if (out.code !== 0) throw new Error(`import git: ${processText(out)}`);
    },
  },
  {
    name: "kiro-learn import jsonl",
    async run(b) {
      const lines = [
        JSON.stringify({ type: "kiro-learn-export", version: 1, exported_at: new Date() }),
        ...SECRET_CORPUS.map((entry) =>
          JSON.stringify({ type: "record", record: record(b, entry) })
        ),
      ];
      const file = `${b.project}/memory.jsonl`;
      await Deno.writeTextFile(file, lines.join("\n") + "\n");
      const out = await runKiroLearn(["import", "jsonl", file], {
        env: b.daemon.env,
        cwd: b.project,
      });
      b.shown.push(processText(out));
      if (out.code !== 0) throw new Error(`import jsonl: ${processText(out)}`);
      await Deno.remove(file);
    },
  },
  {
    name: "kiro-learn import claude-code",
    async run(b) {
      // A transcript where each entry is a prompt and the answer to it.
      const home = await Deno.makeTempDir({ prefix: "kiro-learn-attack-home-" });
      const dir = `${home}/.claude/projects/${b.project.replace(/[^a-zA-Z0-9]/g, "-")}`;
      await Deno.mkdir(dir, { recursive: true });
      const session = crypto.randomUUID();
      const start = Date.UTC(2026, 0, 5);
      const lines = SECRET_CORPUS.flatMap((entry, i) => {
        const base = { sessionId: session, cwd: b.project, isSidechain: false };
        return [
          {
            ...base,
            type: "user",
            uuid: crypto.randomUUID(),
            timestamp: new Date(start + i * 60_000).toISOString(),
            message: { role: "user", content: entry.text },
          },
          {
            ...base,
            type: "assistant",
            uuid: crypto.randomUUID(),
            timestamp: new Date(start + i * 60_000 + 1000).toISOString(),
            message: {
              role: "assistant",
              content: [{ type: "text", text: `Noted: ${entry.text}` }],
            },
          },
        ].map((line) => JSON.stringify(line));
      });
      await Deno.writeTextFile(`${dir}/${session}.jsonl`, lines.join("\n") + "\n");
      try {
        const out = await runKiroLearn(["import", "claude-code", "--project", b.project], {
          env: { ...b.daemon.env, HOME: home },
        });
        b.shown.push(processText(out));
        if (out.code !== 0) throw new Error(`import claude-code: ${processText(out)}`);
        const events = Number(/: (\d+) events/.exec(processText(out))?.[1] ?? 0);
        if (events < SECRET_CORPUS.length) {
          throw new Error(`import claude-code took too few events: ${processText(out)}`);
        }
      } finally {
        await Deno.remove(home, { recursive: true });
      }
    },
  },
];

/** Sends the corpus through every channel; one figure per channel. */
export async function secretChannels(
  options: { log?: (line: string) => void } = {},
): Promise<ChannelFigure[]> {
  const figures: ChannelFigure[] = [];
  for (const channel of CHANNELS) {
    const b = await bench();
    let own: ChannelFigure[] | void;
    try {
      own = await channel.run(b);
    } catch (error) {
      await b.daemon[Symbol.asyncDispose]();
      await Deno.remove(b.daemon.dataDir, { recursive: true }).catch(() => {});
      await Deno.remove(b.project, { recursive: true });
      throw error;
    }
    for (const figure of [...(own ?? []), await verdict(b, channel.name)]) {
      options.log?.(`${figure.channel}: ${figure.leaked} of ${figure.tried} leaked`);
      figures.push(figure);
    }
  }
  return figures;
}
