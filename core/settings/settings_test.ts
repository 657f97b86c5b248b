import assert from "node:assert/strict";
import { join } from "node:path";
import fc from "fast-check";
import {
  DEFAULTS,
  isLoopbackHost,
  loadSettings,
  SettingsError,
  SettingsSchema,
  USER_PORT_SPAN,
  userDefaultPort,
  writeDefaultSettings,
} from "./mod.ts";

async function withDir(fn: (dir: string) => void | Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "kl_settings_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function writeSettings(dir: string, value: unknown): string {
  const path = join(dir, "settings.json");
  Deno.writeTextFileSync(path, typeof value === "string" ? value : JSON.stringify(value));
  return path;
}

function loadError(dir: string, env: Record<string, string> = {}): SettingsError {
  try {
    loadSettings({ dir, env });
  } catch (e) {
    assert.ok(e instanceof SettingsError, `expected SettingsError, got ${e}`);
    return e;
  }
  assert.fail("expected loadSettings to throw");
}

Deno.test("absent settings.json gives the defaults plus paths", async () => {
  await withDir((dir) => {
    const s = loadSettings({ dir, env: {} });
    assert.equal(s.collector.host, "127.0.0.1");
    assert.equal(s.collector.port, 21100);
    assert.equal(s.shim.timeoutMs, 2000);
    assert.equal(s.shim.maxBodyBytes, 524288);
    assert.equal(s.retrieval.budgetMs, 500);
    assert.equal(s.retrieval.limit, 10);
    assert.equal(s.retrieval.tokenBudget, 2000);
    assert.equal(s.extraction.strategy, "auto");
    assert.deepEqual(s.extraction.agentCommand, [
      "kiro-cli",
      "acp",
      "--agent",
      "kiro-learn-compressor",
    ]);
    assert.equal(s.extraction.idleMs, 30000);
    assert.equal(s.extraction.dailyBudgetChars, 2_000_000);
    assert.equal(s.compaction.enabled, true);
    assert.equal(s.compaction.thresholdBytes, 1_048_576);
    assert.deepEqual(s.reconciliation.agentCommand, [
      "kiro-cli",
      "acp",
      "--agent",
      "kiro-learn-reconciler",
    ]);
    assert.equal(s.reconciliation.clusterThreshold, 0.85);
    assert.equal(s.reconciliation.neighborThreshold, 0.8);
    assert.equal(s.embedding.backend, "use-lite");
    assert.equal(s.spool.maxBytes, 67_108_864);
    assert.equal(s.log.level, "info");
    assert.equal(s.dataDir, dir);
    assert.deepEqual(s.paths, {
      settings: join(dir, "settings.json"),
      token: join(dir, "token"),
      db: join(dir, "kiro-learn.db"),
      spool: join(dir, "spool"),
      logs: join(dir, "logs"),
      models: join(dir, "models"),
      pid: join(dir, "collector.pid"),
      bin: join(dir, "bin"),
      starter: join(dir, "bin", "start-collector"),
      socket: join(dir, "collector.sock"),
      hookAuth: join(dir, "hook-auth"),
      unanswered: join(dir, "collector.unanswered"),
      mcpHeadersCache: join(dir, "mcp-headers.cache"),
      mcpRelayCache: join(dir, "mcp-relay.cache"),
      tcpRelaySocket: join(dir, "collector-tcp.sock"),
      installManifest: join(dir, "install-manifest.json"),
      teamPassword: join(dir, "team-password"),
      viewerLinks: join(dir, "viewer-links"),
      agentWorkdir: join(dir, "agent-workdir"),
    });
    assert.deepEqual(s.warnings, []);
  });
});

Deno.test("DEFAULTS is derived from the schema and frozen", () => {
  const { ...parsed } = SettingsSchema.parse({});
  assert.deepEqual(parsed, { ...DEFAULTS });
  assert.ok(Object.isFrozen(DEFAULTS) && Object.isFrozen(DEFAULTS.collector));
  assert.ok(Object.isFrozen(DEFAULTS.extraction.agentCommand));
});

Deno.test("loaded settings do not share mutable arrays", async () => {
  await withDir((dir) => {
    const a = loadSettings({ dir, env: {} });
    a.extraction.agentCommand.push("--oops");
    const b = loadSettings({ dir, env: {} });
    assert.equal(b.extraction.agentCommand.length, 4);
  });
});

Deno.test("kiro-learn's legacy settings.json loads", async () => {
  await withDir((dir) => {
    writeSettings(dir, '{"collector":{"host":"127.0.0.1","port":21100},"shim":{"timeoutMs":2000}}');
    const s = loadSettings({ dir, env: {} });
    assert.equal(s.collector.port, 21100);
    assert.equal(s.shim.timeoutMs, 2000);
    assert.equal(s.retrieval.limit, 10);
    assert.deepEqual(s.warnings, []);
  });
});

Deno.test("file values override defaults; partial sections keep other defaults", async () => {
  await withDir((dir) => {
    writeSettings(dir, {
      collector: { port: 3000 },
      extraction: { strategy: "heuristic", dailyBudgetChars: 0 },
      log: { level: "debug" },
    });
    const s = loadSettings({ dir, env: {} });
    assert.equal(s.collector.port, 3000);
    assert.equal(s.collector.host, "127.0.0.1");
    assert.equal(s.extraction.strategy, "heuristic");
    assert.equal(s.extraction.dailyBudgetChars, 0);
    assert.equal(s.extraction.concurrency, 2);
    assert.equal(s.log.level, "debug");
  });
});

Deno.test("unknown keys are ignored with warnings", async () => {
  await withDir((dir) => {
    writeSettings(dir, { collector: { port: 21100, legacyFlag: true }, ui: { theme: "dark" } });
    const s = loadSettings({ dir, env: {} });
    assert.equal(s.collector.port, 21100);
    assert.ok(!("legacyFlag" in s.collector));
    assert.ok(!("ui" in s));
    assert.equal(s.warnings.length, 2);
    assert.ok(s.warnings.some((w) => w.includes('"collector.legacyFlag"')));
    assert.ok(s.warnings.some((w) => w.includes('"ui"')));
  });
});

Deno.test("env overrides beat the file", async () => {
  await withDir((dir) => {
    writeSettings(dir, { collector: { port: 3000, host: "127.0.0.1" }, log: { level: "warn" } });
    const s = loadSettings({
      dir,
      env: { KIRO_LEARN_PORT: "4000", KIRO_LEARN_HOST: "localhost", KIRO_LEARN_LOG_LEVEL: "error" },
    });
    assert.equal(s.collector.port, 4000);
    assert.equal(s.collector.host, "localhost");
    assert.equal(s.log.level, "error");
    const blank = loadSettings({ dir, env: { KIRO_LEARN_PORT: "" } });
    assert.equal(blank.collector.port, 3000);
  });
});

Deno.test("KIRO_LEARN_HOME chooses the data dir", async () => {
  await withDir((dir) => {
    writeSettings(dir, { collector: { port: 5555 } });
    const s = loadSettings({ env: { KIRO_LEARN_HOME: dir, HOME: "/nonexistent" } });
    assert.equal(s.dataDir, dir);
    assert.equal(s.collector.port, 5555);
  });
});

const invalidCases: Array<[string, unknown, string[]]> = [
  ["collector.port", { collector: { port: 99999 } }, [
    "settings.json: collector.port = 99999 is out of range (allowed: integer 1–65535).",
    "remove the key to use the default (21100).",
  ]],
  ["collector.port", { collector: { port: 0 } }, ["collector.port = 0 is out of range", "1–65535"]],
  ["collector.port", { collector: { port: "80" } }, [
    'collector.port = "80" is not a number',
    "integer 1–65535",
  ]],
  ["collector.host", { collector: { host: "0.0.0.0" } }, [
    'collector.host = "0.0.0.0" is not a loopback host',
    "127.x.x.x, ::1 or localhost",
    '("127.0.0.1")',
  ]],
  ["shim.timeoutMs", { shim: { timeoutMs: 10 } }, ["shim.timeoutMs = 10", "50–30000", "(2000)"]],
  ["retrieval.budgetMs", { retrieval: { budgetMs: 6000 } }, [
    "retrieval.budgetMs = 6000",
    "10–5000",
  ]],
  ["retrieval.limit", { retrieval: { limit: 51 } }, ["retrieval.limit = 51", "1–50"]],
  ["retrieval.tokenBudget", { retrieval: { tokenBudget: 99 } }, ["= 99", "100–20000"]],
  ["extraction.strategy", { extraction: { strategy: "llm" } }, [
    'extraction.strategy = "llm" is not an allowed value',
    '"auto", "acp", "heuristic"',
  ]],
  ["extraction.agentCommand", { extraction: { agentCommand: [] } }, [
    "extraction.agentCommand = []",
    "non-empty array of non-empty strings",
  ]],
  ["extraction.agentCommand", { extraction: { agentCommand: ["kiro-cli", ""] } }, [
    'extraction.agentCommand = ["kiro-cli",""]',
  ]],
  ["extraction.idleMs", { extraction: { idleMs: 1000 } }, ["= 1000", "5000–300000"]],
  ["extraction.sizeThresholdBytes", { extraction: { sizeThresholdBytes: 10 } }, ["1024–16777216"]],
  ["extraction.promptCapBytes", { extraction: { promptCapBytes: 1 } }, ["4096–1048576"]],
  ["extraction.timeoutMs", { extraction: { timeoutMs: 1 } }, ["30000–600000"]],
  // The old floor: too short for claude-code-acp to start (see AGENT_TIMEOUT_MIN_MS).
  ["extraction.timeoutMs", { extraction: { timeoutMs: 5000 } }, ["= 5000", "30000–600000"]],
  ["compaction.timeoutMs", { compaction: { timeoutMs: 5000 } }, ["= 5000", "30000–600000"]],
  ["extraction.maxAttempts", { extraction: { maxAttempts: 1.5 } }, [
    "extraction.maxAttempts = 1.5 is not an integer",
    "1–10",
  ]],
  ["extraction.concurrency", { extraction: { concurrency: 9 } }, ["= 9", "1–8"]],
  ["extraction.breakerThreshold", { extraction: { breakerThreshold: 0 } }, ["1–100"]],
  ["extraction.breakerCooldownMs", { extraction: { breakerCooldownMs: 1 } }, ["1000–86400000"]],
  ["extraction.dailyBudgetChars", { extraction: { dailyBudgetChars: -1 } }, [
    "= -1",
    "0–1000000000",
  ]],
  ["extraction.agentEnv", { extraction: { agentEnv: ["PATH", "ANTHROPIC_*"] } }, [
    'extraction.agentEnv = ["PATH","ANTHROPIC_*"] is invalid',
    "no wildcards",
  ]],
  ["compaction.enabled", { compaction: { enabled: "yes" } }, [
    'compaction.enabled = "yes" is not a boolean',
    "true or false",
  ]],
  ["compaction.thresholdBytes", { compaction: { thresholdBytes: 1 } }, ["65536–67108864"]],
  ["reconciliation.judgeTimeoutMs", { reconciliation: { judgeTimeoutMs: 5000 } }, [
    "= 5000",
    "30000–300000",
  ]],
  ["reconciliation.clusterThreshold", { reconciliation: { clusterThreshold: 1.5 } }, [
    "reconciliation.clusterThreshold = 1.5 is out of range (allowed: number 0–1)",
    "(0.85)",
  ]],
  ["reconciliation.neighborThreshold", { reconciliation: { neighborThreshold: -0.1 } }, ["0–1"]],
  ["reconciliation.neighborPoolMax", { reconciliation: { neighborPoolMax: 101 } }, ["1–100"]],
  ["embedding.backend", { embedding: { backend: "gpu" } }, ['"use-lite", "onnx", "off"']],
  ["spool.maxBytes", { spool: { maxBytes: 1 } }, ["1048576–1073741824"]],
  ["log.level", { log: { level: "trace" } }, ['"debug", "info", "warn", "error"', '("info")']],
  ["log", { log: "debug" }, ['log = "debug" is not an object', "an object with the keys level"]],
  ["collector.port", { collector: { port: null } }, ["collector.port = null"]],
];

for (const [key, value, fragments] of invalidCases) {
  Deno.test(`invalid ${key} = ${JSON.stringify(value)} names key, value and range`, async () => {
    await withDir((dir) => {
      const file = writeSettings(dir, value);
      const err = loadError(dir);
      assert.equal(err.issues.length, 1);
      assert.equal(err.issues[0].path, key);
      assert.ok(err.message.startsWith("settings.json: "), err.message);
      assert.ok(err.message.includes(`Fix it in ${file}`), err.message);
      for (const fragment of fragments) assert.ok(err.message.includes(fragment), err.message);
    });
  });
}

Deno.test("every invalid key is reported, one line each", async () => {
  await withDir((dir) => {
    writeSettings(dir, { collector: { port: 0, host: "example.com" }, log: { level: "loud" } });
    const err = loadError(dir);
    assert.equal(err.message.split("\n").length, 3);
    assert.deepEqual(err.issues.map((i) => i.path).sort(), [
      "collector.host",
      "collector.port",
      "log.level",
    ]);
  });
});

Deno.test("invalid env overrides name the variable", async () => {
  await withDir((dir) => {
    const port = loadError(dir, { KIRO_LEARN_PORT: "70000" });
    assert.ok(
      port.message.startsWith(
        "KIRO_LEARN_PORT: collector.port = 70000 is out of range (allowed: integer 1–65535).",
      ),
      port.message,
    );
    assert.ok(port.message.includes("unset it"), port.message);
    const word = loadError(dir, { KIRO_LEARN_PORT: "http" });
    assert.ok(word.message.includes('collector.port = "http" is not a number'), word.message);
    const host = loadError(dir, { KIRO_LEARN_HOST: "0.0.0.0" });
    assert.ok(host.message.includes("KIRO_LEARN_HOST: collector.host"), host.message);
    const level = loadError(dir, { KIRO_LEARN_LOG_LEVEL: "verbose" });
    assert.ok(level.message.includes('log.level = "verbose"'), level.message);
  });
});

Deno.test("non-loopback hosts are refused, loopback ones accepted", () => {
  for (const ok of ["127.0.0.1", "127.1.2.3", "127.255.255.255", "::1", "localhost", "LOCALHOST"]) {
    assert.ok(isLoopbackHost(ok), ok);
  }
  for (
    const bad of ["0.0.0.0", "192.168.1.2", "128.0.0.1", "127.0.0.256", "example.com", "", "::"]
  ) {
    assert.ok(!isLoopbackHost(bad), bad);
  }
});

Deno.test("unparsable JSON names the file and position", async () => {
  await withDir((dir) => {
    const file = writeSettings(dir, '{\n  "collector": {"port": 1,}\n}');
    const err = loadError(dir);
    assert.ok(err.message.includes(file), err.message);
    assert.ok(err.message.includes("is not valid JSON"), err.message);
    assert.ok(err.message.includes("line 2, column 27"), err.message);
    assert.ok(err.message.includes("position 28"), err.message);
    assert.ok(err.message.includes("delete the file to use the defaults"), err.message);
  });
});

Deno.test("non-object JSON is refused; empty file and BOM are tolerated", async () => {
  await withDir((dir) => {
    writeSettings(dir, "[1,2]");
    assert.ok(loadError(dir).message.includes("must hold a JSON object"));
    writeSettings(dir, "   \n");
    const empty = loadSettings({ dir, env: {} });
    assert.equal(empty.collector.port, 21100);
    assert.equal(empty.warnings.length, 1);
    writeSettings(dir, '\ufeff{"collector":{"port":2222}}');
    assert.equal(loadSettings({ dir, env: {} }).collector.port, 2222);
  });
});

Deno.test("writeDefaultSettings writes once, 0600, and the file reloads as the defaults", async () => {
  await withDir((root) => {
    const dir = join(root, "data");
    assert.equal(writeDefaultSettings(dir), true);
    const path = join(dir, "settings.json");
    if (Deno.build.os !== "windows") {
      assert.equal(Deno.statSync(path).mode! & 0o777, 0o600);
      assert.equal(Deno.statSync(dir).mode! & 0o777, 0o700);
    }
    const s = loadSettings({ dir, env: {} });
    assert.deepEqual(s.warnings, []);
    assert.equal(s.collector.port, DEFAULTS.collector.port);

    Deno.writeTextFileSync(path, '{"collector":{"port":1234}}');
    assert.equal(writeDefaultSettings(dir), false);
    assert.equal(loadSettings({ dir, env: {} }).collector.port, 1234);
    assert.deepEqual(Array.from(Deno.readDirSync(dir)).map((e) => e.name), ["settings.json"]);
  });
});

Deno.test("property: any in-range port round-trips through the file and the env", async () => {
  await withDir((dir) => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 65535 }), (port) => {
        writeSettings(dir, { collector: { port } });
        assert.equal(loadSettings({ dir, env: {} }).collector.port, port);
        assert.equal(
          loadSettings({ dir, env: { KIRO_LEARN_PORT: String(port) } }).collector.port,
          port,
        );
      }),
      { numRuns: 100 },
    );
  });
});

Deno.test("property: any out-of-range integer port is refused with its value", async () => {
  await withDir((dir) => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 65536 })),
        (port) => {
          writeSettings(dir, { collector: { port } });
          const err = loadError(dir);
          assert.ok(err.message.includes(`collector.port = ${port} is out of range`), err.message);
        },
      ),
      { numRuns: 50 },
    );
  });
});

Deno.test("the default port is the user's own: 21100 + uid mod 4000", () => {
  assert.equal(userDefaultPort(0), 21100);
  assert.equal(userDefaultPort(null), 21100);
  assert.equal(userDefaultPort(1000), 22100);
  assert.equal(userDefaultPort(1001), 22101);
  assert.equal(userDefaultPort(65534), 21100 + 65534 % USER_PORT_SPAN);
  // Every uid lands in one range, below Linux's ephemeral ports.
  fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (uid) => {
    const port = userDefaultPort(uid);
    return port >= 21100 && port < 21100 + USER_PORT_SPAN && port < 32768;
  }));
});

Deno.test("settings without a port give the data dir owner's port; a set port wins", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-port-" });
  try {
    // Root can give the folder to another user, which is what tells this user's port apart.
    if (Deno.uid() === 0) Deno.chownSync(dir, 4242, 4242);
    const owner = Deno.statSync(dir).uid!;
    await Deno.writeTextFile(join(dir, "settings.json"), JSON.stringify({ shim: {} }));
    assert.equal(loadSettings({ dir, env: {} }).collector.port, userDefaultPort(owner));
    assert.equal(loadSettings({ dir, env: { KIRO_LEARN_PORT: "30001" } }).collector.port, 30001);
    await Deno.writeTextFile(join(dir, "settings.json"), '{"collector": {"port": 30002}}');
    assert.equal(loadSettings({ dir, env: {} }).collector.port, 30002);
    // Written defaults pin this user's port, so every reader agrees with the installed hooks.
    const fresh = join(dir, "fresh");
    assert.ok(writeDefaultSettings(fresh));
    const written = JSON.parse(await Deno.readTextFile(join(fresh, "settings.json")));
    assert.equal(written.collector.port, userDefaultPort(Deno.statSync(fresh).uid));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
