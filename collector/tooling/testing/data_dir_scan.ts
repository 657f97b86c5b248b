/**
 * Searches every byte of a folder (a collector's data dir: the database, its WAL, the spool, the
 * logs) for secrets, as an attacker reading the disk would.
 *
 * A secret is looked for whole, and also by the tail of each of its long alphanumeric runs in
 * lower case: the full-text index stores tokens lower-cased and front-coded (a term keeps only
 * what differs from the term before it), so a token that reached the index is found even though
 * the secret as written is not.
 *
 * @module
 */

/** A secret to look for, and what kind it is. */
export interface SecretProbe {
  /** The kind (for the report). */
  kind: string;
  /** The secret itself. */
  secret: string;
}

/** Where a secret was found. */
export interface SecretFinding {
  /** The file, relative to the searched folder. */
  file: string;
  /** The secret's kind. */
  kind: string;
  /** The secret. */
  secret: string;
}

/** Every regular file under `dir`, recursively. */
export async function everyFile(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) out.push(...await everyFile(path));
    else if (entry.isFile) out.push(path);
  }
  return out;
}

/** Long enough that a random run's tail is found nowhere by chance. */
const TAIL = 10;

/** What is searched for one secret: the secret, and the lower-cased tail of each long run. */
export function secretNeedles(secret: string): string[] {
  const tails = secret.split(/[^A-Za-z0-9]+/).filter((run) => run.length >= TAIL)
    .map((run) => run.slice(-TAIL).toLowerCase());
  return [secret, ...new Set(tails)];
}

/** Every file under `dir` holding one of `secrets` (whole, or a run's tail in lower case). */
export async function secretsOnDisk(
  dir: string,
  secrets: readonly SecretProbe[],
): Promise<SecretFinding[]> {
  const found: SecretFinding[] = [];
  // latin1 maps every byte to one character, so no byte sequence is lost to decoding.
  const decoder = new TextDecoder("latin1");
  const probes = secrets.map((s) => ({ ...s, needles: secretNeedles(s.secret) }));
  for (const file of await everyFile(dir)) {
    const text = decoder.decode(await Deno.readFile(file));
    const lower = text.toLowerCase();
    for (const probe of probes) {
      const [whole, ...tails] = probe.needles;
      if (text.includes(whole) || tails.some((tail) => lower.includes(tail))) {
        found.push({ file: file.slice(dir.length + 1), kind: probe.kind, secret: probe.secret });
      }
    }
  }
  return found;
}
