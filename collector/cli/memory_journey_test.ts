// What docs/projects.md tells a user to do with their memory, walked as written: the page's blocks
// marked `<!-- memory-journey: … -->`, read from the page and run by `sh -e` with the launcher
// `kiro-learn link` wrote on PATH, on two machines (each its own HOME, data dir, user name and
// collector, started with `kiro-learn start`). Alice's machine: `import git` in a real repository
// with a GitHub remote, whose commit `search` finds there and not in another repository, then
// `export`. Bob's machine: `git clone` of the same remote at another path, `import jsonl` of the
// file: found under bob in the project id doctor reports for his clone, and `import git` adds
// nothing (a forget of it typed before the import changes nothing); `forget`: gone from search,
// from the disk and from a new export, and neither the old export nor the history brings it back.
// Then `forget --with-sources` on a memory the replayed sample session left takes its events.
import assert from "node:assert/strict";
import { REPO_ROOT } from "@kiro-learn/core/launch";
import { projectIdFromNamespace } from "@kiro-learn/core/project";
import { runGit } from "@kiro-learn/core/testing";
import {
  type AgentSandbox,
  agentSandbox,
  everyFile,
  gitCheckout,
  type LinkedShell,
  linkedShell,
  markedDocBlock,
  MEMORY_JOURNEY_MARKER,
  outputText,
  PROJECTS_DOCS_PAGE,
} from "../tooling/testing/mod.ts";

/** A commit of the test's histories: what it says and the files it changes. */
interface Change {
  subject: string;
  body: string;
  files: Record<string, string>;
}

const SHOP_HISTORY: Change[] = [
  {
    subject: "Start the shop API with an orders endpoint",
    body: "POST /orders validates the cart and stores the order; GET /orders/:id reads it back.",
    files: { "src/orders.ts": "export function createOrder() {}\n" },
  },
  {
    subject: "Round invoice totals once, half to even",
    body: "Summing rounded line amounts drifted by a cent on large invoices. Lines now keep full " +
      "precision and only the invoice total is rounded, half to even (banker's rounding).\n\n" +
      "Signed-off-by: Ada Moreau <ada@acme.dev>",
    files: { "src/invoice.ts": "export function invoiceTotal() {}\n" },
  },
  {
    subject: "Fix currency codes rejected in lowercase",
    body: "The order validator compared codes with an uppercase list; codes are uppercased " +
      "(ISO 4217) before the check now.",
    files: { "src/currency.ts": "export function currencyCode() {}\n" },
  },
];
/** The commit the page's search finds, and the user forgets. */
const ROUNDING = SHOP_HISTORY[1];
/** Words of the rounding commit's body only (not of its title, nor of any other record). */
const ROUNDING_WORDS = "drifted by a cent on large invoices";

const BILLING_REMOTE = "https://github.com/acme/billing-ui.git";
/** Another project's commit the same search would find, were the projects mixed. */
const BILLING_HISTORY: Change[] = [{
  subject: "Show invoice totals with the API's rounding",
  body: "The invoice page shows the total the API computed instead of rounding line sums again " +
    "in the browser.",
  files: { "src/invoice_page.tsx": "export function InvoicePage() {}\n" },
}];

/** The block of docs/projects.md marked `<!-- memory-journey: name -->`. */
function block(name: string): string {
  return markedDocBlock(PROJECTS_DOCS_PAGE, name, { marker: MEMORY_JOURNEY_MARKER, lang: "sh" });
}

/** The folder below `~` a block's first line goes to (`cd ~/<folder>`). */
function cdOf(name: string, text: string): string {
  const cd = /^cd ~\/(\S+)\n/.exec(text);
  assert.ok(cd, `the ${name} block does not start with \`cd ~/<folder>\`: ${text}`);
  return cd[1];
}

/** The quoted query of a block's `kiro-learn search "…"` line. */
function queryOf(name: string, text: string): string {
  const search = /^kiro-learn search "([^"]+)"/m.exec(text);
  assert.ok(search, `the ${name} block runs no \`kiro-learn search "…"\`: ${text}`);
  return search[1];
}

/** Commits `changes` in `dir` with the real git, as their author would. */
async function commitAll(dir: string, changes: readonly Change[]): Promise<void> {
  for (const change of changes) {
    for (const [path, text] of Object.entries(change.files)) {
      await Deno.mkdir(`${dir}/${path.slice(0, path.lastIndexOf("/"))}`, { recursive: true });
      await Deno.writeTextFile(`${dir}/${path}`, text);
      await runGit(dir, "add", path);
    }
    await runGit(
      dir,
      "commit",
      "-q",
      "--author",
      "Ada Moreau <ada@acme.dev>",
      "-m",
      change.subject,
      "-m",
      change.body,
    );
  }
}

/** A machine: a sandbox (HOME, data dir, USER) with `kiro-learn` on PATH and its collector up. */
async function machine(actor: string): Promise<{ box: AgentSandbox; shell: LinkedShell }> {
  const box = await agentSandbox({ actor, prefix: `kiro-learn-memory-${actor}-` });
  try {
    const shell = await linkedShell(box);
    const started = await shell.kiroLearn(["start"], box.home);
    assert.equal(started.code, 0, outputText(started));
    return { box, shell };
  } catch (error) {
    await box[Symbol.asyncDispose]();
    throw error;
  }
}

/** Runs a marked block with `sh -e` in `cwd`; asserts it ran to its end; returns its output. */
async function run(shell: LinkedShell, name: string, text: string, cwd: string): Promise<string> {
  const done = await shell.sh(text, cwd);
  const out = outputText(done);
  assert.equal(done.code, 0, `the ${name} block failed: ${out}`);
  return out;
}

/** A search result as `kiro-learn search --json` prints it (the fields read here). */
interface Found {
  record_id: string;
  title: string;
  namespace: string;
  observation_type: string;
  source_event_ids: string[];
}

async function searchJson(shell: LinkedShell, query: string, cwd: string): Promise<Found[]> {
  const done = await shell.kiroLearn(["search", query, "--json"], cwd);
  assert.equal(done.code, 0, outputText(done));
  return JSON.parse(new TextDecoder().decode(done.stdout));
}

/** The 16-character project id prefix `kiro-learn doctor` reports for `cwd`, from its remote. */
async function doctorProjectId(shell: LinkedShell, cwd: string, remote: string): Promise<string> {
  // No agent is wired on these machines, so doctor's exit code says so: only its line is read.
  const out = outputText(await shell.kiroLearn(["doctor"], cwd));
  const id = new RegExp(`id (\\S+)… from remote origin \\(${remote.replaceAll(".", "\\.")}\\)`)
    .exec(out);
  assert.ok(id, `doctor names no id from ${remote} for ${cwd}: ${out}`);
  return id[1];
}

/** The result line `kiro-learn search` prints for `title`, with its record id. */
function resultLine(title: string): RegExp {
  return new RegExp(
    `^\\d+\\. \\[\\w+\\] ${title.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}  ` +
      "\\((mr_\\w+)\\)$",
    "m",
  );
}

Deno.test("docs/projects.md, walked as written: import git, export to another machine, import jsonl, forget", async () => {
  const importGit = block("import-git");
  const otherProject = block("other-project");
  const exportBlock = block("export");
  const importJsonl = block("import-jsonl");
  const forgetFind = block("forget-find");
  const forgetBlock = block("forget");
  const query = queryOf("import-git", importGit);
  for (const [name, text] of [["other-project", otherProject], ["forget-find", forgetFind]]) {
    assert.equal(queryOf(name, text), query, `the ${name} block searches something else`);
  }
  const clone = /^git clone (\S+) ~\/(\S+)$/m.exec(importJsonl);
  assert.ok(clone, `the import-jsonl block clones nothing: ${importJsonl}`);
  const [, remote, cloneFolder] = clone;
  const exportFile = /kiro-learn export -o ~\/(\S+)/.exec(exportBlock);
  assert.ok(exportFile, `the export block writes no \`-o ~/<file>\`: ${exportBlock}`);
  const file = exportFile[1];
  for (const [name, text] of [["import-jsonl", importJsonl], ["forget", forgetBlock]]) {
    assert.ok(text.includes(`kiro-learn import jsonl ~/${file}`), `${name} reads another file`);
  }
  assert.ok(forgetBlock.includes("<record_id>"), `forget names no <record_id>: ${forgetBlock}`);
  const remoteUrl = new URL(remote);
  const remoteShown = `${remoteUrl.host}${remoteUrl.pathname.replace(/\.git$/, "")}`;

  const alice = await machine("alice");
  await using _alice = alice.box;
  const bob = await machine("bob");
  await using _bob = bob.box;

  // --- Alice: memory on day one, in her clone of the remote, and none of it in another project.
  const shop = await gitCheckout(alice.box.home, cdOf("import-git", importGit), remote);
  await commitAll(shop.dir, SHOP_HISTORY);
  const billing = await gitCheckout(
    alice.box.home,
    cdOf("other-project", otherProject),
    BILLING_REMOTE,
  );
  await commitAll(billing.dir, BILLING_HISTORY);

  const imported = await run(alice.shell, "import-git", importGit, alice.box.home);
  assert.match(imported, new RegExp(`imported ${shop.dir}: 3 added, 0 already present`));
  const shown = resultLine(ROUNDING.subject).exec(imported);
  assert.ok(shown, `search in ${shop.dir} does not show "${ROUNDING.subject}": ${imported}`);
  const recordId = shown[1];
  // What the commit said: its body's first line and the file it changed, under its title.
  assert.ok(imported.includes(`   ${ROUNDING.body.split(". ")[0]}.`), imported);
  assert.match(imported, /^ {3}files: src\/invoice\.ts$/m);

  const other = await run(alice.shell, "other-project", otherProject, alice.box.home);
  assert.match(other, new RegExp(`imported ${billing.dir}: 1 added, 0 already present`));
  assert.match(other, resultLine(BILLING_HISTORY[0].subject), "billing-ui finds its own commit");
  assert.ok(!other.includes(ROUNDING.subject), `shop-api's commit reached billing-ui: ${other}`);
  const inShop = await searchJson(alice.shell, query, shop.dir);
  assert.deepEqual(inShop.map((r) => r.title), [ROUNDING.subject], "billing-ui reached shop-api");
  const aliceNs = inShop[0].namespace;
  const projectId = projectIdFromNamespace(aliceNs);
  assert.equal(aliceNs, `/actor/alice/project/${shop.projectId}/`);
  assert.equal(projectId?.slice(0, 16), await doctorProjectId(alice.shell, shop.dir, remoteShown));

  // --- Alice exports; the file goes to Bob's machine (scp, a USB stick: a copy).
  const exported = await run(alice.shell, "export", exportBlock, alice.box.home);
  assert.match(
    exported,
    new RegExp(`exported 3 records of ${aliceNs} to ${alice.box.home}/${file}`),
  );
  await Deno.copyFile(`${alice.box.home}/${file}`, `${bob.box.home}/${file}`);

  // --- Bob clones the same remote. The tests run offline: git's own `insteadOf` fetches the URL
  // from Alice's repository, and the clone's config names the URL as typed.
  await Deno.writeTextFile(
    `${bob.box.home}/.gitconfig`,
    `[url "${shop.dir}"]\n\tinsteadOf = ${remote}\n`,
  );
  const shopB = `${bob.box.home}/${cloneFolder}`;
  // Bob forgets the record too early, before it is here: "no memory", and nothing changes (the
  // import below still brings it).
  const tooEarly = await bob.shell.kiroLearn(["forget", recordId], bob.box.home);
  assert.equal(tooEarly.code, 1, outputText(tooEarly));
  assert.match(outputText(tooEarly), new RegExp(`^no memory ${recordId}: check the id`, "m"));
  const onBob = await run(bob.shell, "import-jsonl", importJsonl, bob.box.home);
  assert.match(onBob, new RegExp(`imported ${bob.box.home}/${file}: 3 added, 0 already present`));
  assert.equal(
    resultLine(ROUNDING.subject).exec(onBob)?.[1],
    recordId,
    `search on Bob's machine does not show "${ROUNDING.subject}" (${recordId}): ${onBob}`,
  );
  assert.match(onBob, new RegExp(`imported ${shopB}: 0 added, 3 already present`));
  // Under Bob's user, in the project id his clone has (doctor's), the same as Alice's.
  const bobId = await doctorProjectId(bob.shell, shopB, remoteShown);
  const inBob = await searchJson(bob.shell, query, shopB);
  assert.deepEqual(inBob.map((r) => [r.record_id, r.namespace]), [
    [recordId, `/actor/bob/project/${projectId}/`],
  ]);
  assert.equal(bobId, projectId?.slice(0, 16));

  // --- Bob forgets it: the id search printed, typed where the page says <record_id>.
  const findFolder = cdOf("forget-find", forgetFind);
  assert.equal(findFolder, cloneFolder, "forget-find searches another folder than the clone");
  const found = await run(bob.shell, "forget-find", forgetFind, bob.box.home);
  const typed = resultLine(ROUNDING.subject).exec(found);
  assert.ok(typed, `forget-find does not show "${ROUNDING.subject}": ${found}`);
  assert.equal(typed[1], recordId);
  const forgot = await run(
    bob.shell,
    "forget",
    forgetBlock.replaceAll("<record_id>", typed[1]),
    shopB,
  );
  assert.match(forgot, new RegExp(`^forgot ${recordId}$`, "m"));
  assert.ok(!forgot.includes(ROUNDING.subject), `search still finds the forgotten: ${forgot}`);
  const notBack = "0 added, 2 already present, 1 forgotten \\(not brought back\\)";
  assert.match(forgot, new RegExp(`imported ${bob.box.home}/${file}: ${notBack}`));
  assert.match(forgot, new RegExp(`imported ${shopB}: ${notBack}`));
  assert.deepEqual(await searchJson(bob.shell, query, shopB), [], "forgotten, then brought back");
  // Never exported again (the README's export line): Bob's export holds the two others only.
  const reexport = await bob.shell.kiroLearn(["export"], shopB);
  assert.equal(reexport.code, 0, outputText(reexport));
  const lines = new TextDecoder().decode(reexport.stdout).trim().split("\n").slice(1);
  assert.deepEqual(
    lines.map((l) => JSON.parse(l).record.title).sort(),
    SHOP_HISTORY.filter((c) => c !== ROUNDING).map((c) => c.subject).sort(),
  );
  // No byte of it on Bob's disk (database, WAL, index, logs); Alice's copy is hers.
  for (const path of await everyFile(bob.box.dataDir)) {
    const bytes = new TextDecoder("latin1").decode(await Deno.readFile(path));
    for (const text of [ROUNDING.subject, ROUNDING_WORDS]) {
      assert.ok(!bytes.includes(text), `${path} still holds "${text}" after forget`);
    }
  }
  assert.deepEqual((await searchJson(alice.shell, query, shop.dir)).map((r) => r.record_id), [
    recordId,
  ]);

  // Nothing of either machine outlives the test.
  await alice.box.stopAll(alice.box.home);
  await bob.box.stopAll(bob.box.home);
});

Deno.test("docs/projects.md: forget --with-sources takes a session's memory with the events it came from", async () => {
  const withSources = block("forget-with-sources");
  assert.ok(withSources.includes("<record_id>"), `no <record_id> to type: ${withSources}`);
  const { box, shell } = await machine("carol");
  await using _box = box;
  const project = await gitCheckout(
    box.home,
    "src/shop-api",
    "https://github.com/acme/shop-api.git",
  );
  // A session the hooks record: the README's sample, through the real shims, in the project.
  const sample = `${REPO_ROOT}/shims/testdata/sample_session.ndjson`;
  const replayed = await shell.kiroLearn(["replay", sample, "--cwd", project.dir], project.dir);
  assert.equal(replayed.code, 0, outputText(replayed));
  const flushed = await box.api(`/v1/extraction/flush?project_id=${project.projectId}`, {
    method: "POST",
  });
  const flushText = await flushed.text();
  assert.equal(flushed.status, 200, flushText);
  const query = "leap year test failure";
  const record = (await searchJson(shell, query, project.dir))
    .find((r) => r.observation_type === "error" && r.source_event_ids.length > 0);
  assert.ok(record, "the replayed session left no memory of its failing test");
  const namespace = box.namespaceOf(project.dir);
  const eventIds = async () =>
    new Set(
      (await box.eventsIn(namespace)).map((e) => (e as unknown as { event_id: string }).event_id),
    );
  const before = await eventIds();
  const sources = record.source_event_ids.filter((id) => before.has(id));
  assert.ok(sources.length > 0, `none of ${record.source_event_ids} is an event of ${namespace}`);

  // The page's block, with the id search printed typed where it says <record_id>.
  const forgot = await run(
    shell,
    "forget-with-sources",
    withSources.replaceAll("<record_id>", record.record_id),
    project.dir,
  );
  assert.match(
    forgot,
    new RegExp(`^forgot ${record.record_id} and ${sources.length} source events$`, "m"),
  );
  const after = await eventIds();
  assert.deepEqual(sources.filter((id) => after.has(id)), [], "its events outlived the forget");
  assert.ok(
    !(await searchJson(shell, query, project.dir)).some((r) => r.record_id === record.record_id),
  );
  await box.stopAll(box.home);
});
