/**
 * Collector benchmark: sustained ingest with 8 concurrent clients on loopback against the real
 * daemon, and inline-retrieval latency at 10k and 100k records in one namespace.
 *
 * Run: `deno run -A collector/tooling/bench/collector_bench.ts [--quick]`. Figures go to stdout and to
 * `.bench/collector.json`.
 *
 * @module
 */
import { openSqliteStorage } from "@kiro-learn/core/storage";
import {
  corpusNamespace,
  formatMs,
  generateEvents,
  generateQueries,
  generateRecords,
  makeEvent,
  summarize,
} from "@kiro-learn/core/testing";
import { postJson, startTestDaemon } from "../testing/mod.ts";

const quick = Deno.args.includes("--quick");
const out = Deno.args.find((a) => a.startsWith("--out="))?.slice(6) ??
  new URL(`../../../.bench/collector${quick ? "-quick" : ""}.json`, import.meta.url).pathname;

/** Reads HTTP/1.1 responses (status line, headers, Content-Length body) off one connection. */
class HttpResponseReader {
  #conn: Deno.Conn;
  #buffer = "";
  #decoder = new TextDecoder();
  constructor(conn: Deno.Conn) {
    this.#conn = conn;
  }
  async next(): Promise<number> {
    const chunk = new Uint8Array(64 * 1024);
    for (;;) {
      const end = this.#buffer.indexOf("\r\n\r\n");
      if (end >= 0) {
        const head = this.#buffer.slice(0, end);
        const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        if (this.#buffer.length >= end + 4 + length) {
          this.#buffer = this.#buffer.slice(end + 4 + length);
          return Number(head.slice(9, 12));
        }
      }
      const n = await this.#conn.read(chunk);
      if (n === null) throw new Error("connection closed");
      this.#buffer += this.#decoder.decode(chunk.subarray(0, n));
    }
  }
}

async function ingest(): Promise<Record<string, number>> {
  const total = quick ? 2000 : 20_000;
  const reps = Deno.args.includes("--long") ? 5 : 1;
  const clients = 8;
  const ns = corpusNamespace("ingest");
  const events = generateEvents(total, { seed: 7, namespace: ns });
  void reps;
  await using daemon = await startTestDaemon({
    settings: {
      extraction: { strategy: "heuristic", idleMs: 300_000, sizeThresholdBytes: 16_777_216 },
      compaction: { enabled: false },
    },
  });
  // Requests are serialised up front and sent over raw keep-alive connections, so the load
  // generator (on the same two cores) costs far less than the server it measures.
  const encoder = new TextEncoder();
  const requests = events.map((event) => {
    const body = JSON.stringify(event);
    return encoder.encode(
      `POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1:${daemon.port}\r\n` +
        `Authorization: Bearer ${daemon.token}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${encoder.encode(body).byteLength}\r\n\r\n${body}`,
    );
  });
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, async () => {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: daemon.port });
    const reader = new HttpResponseReader(conn);
    try {
      while (next < requests.length) {
        const request = requests[next++];
        const t = performance.now();
        await conn.write(request);
        const status = await reader.next();
        latencies.push(performance.now() - t);
        if (status !== 200) throw new Error(`ingest answered ${status}`);
      }
    } finally {
      conn.close();
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  const s = summarize(latencies);
  const rate = total / seconds;
  console.log(
    `collector: ingest ${total} events, ${clients} clients  ${
      Math.round(rate).toLocaleString("en")
    } ev/s` +
      `  p50 ${formatMs(s.p50)}  p99 ${formatMs(s.p99)}  max ${formatMs(s.max)}`,
  );
  return {
    events: total,
    clients,
    events_per_s: Math.round(rate),
    p50_ms: s.p50,
    p99_ms: s.p99,
    max_ms: s.max,
  };
}

async function retrieval(size: number): Promise<Record<string, number>> {
  const ns = corpusNamespace("main");
  await using daemon = await startTestDaemon({
    settings: {
      extraction: { strategy: "heuristic", idleMs: 300_000 },
      compaction: { enabled: false },
    },
  });
  const storage = openSqliteStorage(`${daemon.dataDir}/kiro-learn.db`);
  const records = generateRecords(size, { seed: 1, namespace: ns });
  for (let i = 0; i < records.length; i += 1000) {
    await storage.commitExtraction({
      consumedSeqs: [],
      records: records.slice(i, i + 1000).map((record) => ({ record })),
    });
  }
  storage.close();
  const queries = generateQueries(quick ? 50 : 200, { seed: 2 });
  const server: number[] = [];
  const roundTrip: number[] = [];
  let injected = 0;
  for (const pass of [0, 1]) {
    for (const q of queries) {
      const event = makeEvent({ namespace: ns, body: { type: "text", content: q.text } });
      const t = performance.now();
      const res = await (await postJson(daemon, "/v1/events?retrieve=true", event)).json();
      const rt = performance.now() - t;
      if (pass === 1) {
        roundTrip.push(rt);
        server.push(res.retrieval.latency_ms);
        if (res.retrieval.records.length > 0) injected++;
      }
    }
  }
  const s = summarize(server);
  const r = summarize(roundTrip);
  const label = size >= 1000 ? `${size / 1000}k` : String(size);
  console.log(
    `collector: inline retrieval ${label.padEnd(5)} p50 ${formatMs(s.p50)}  p95 ${
      formatMs(s.p95)
    }  max ${formatMs(s.max)}` +
      `  (HTTP round trip p50 ${formatMs(r.p50)} p95 ${
        formatMs(r.p95)
      }; ${injected}/${queries.length} prompts got context)`,
  );
  return {
    records: size,
    p50_ms: s.p50,
    p95_ms: s.p95,
    max_ms: s.max,
    http_p50_ms: r.p50,
    http_p95_ms: r.p95,
  };
}

if (import.meta.main) {
  const results = {
    ingest: await ingest(),
    retrieval: [await retrieval(quick ? 1000 : 10_000), await retrieval(quick ? 5000 : 100_000)],
    quick,
    at: new Date().toISOString(),
  };
  await Deno.mkdir(new URL(".", `file://${out}`).pathname, { recursive: true });
  await Deno.writeTextFile(out, JSON.stringify(results, null, 2) + "\n");
  console.log(`collector: wrote ${out}`);
}
