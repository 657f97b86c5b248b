/**
 * The real-client e2e tests' "memory reaches the next session, only in its project" step (Gemini
 * CLI, Copilot CLI): the same question asked in the project that holds the memories and in
 * another one.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { ModelRequest } from "./_scripted_server.ts";

/** What one session of the client printed. */
interface ClientRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Asks `question` in `alpha` (every one of `titles` must be in the first model request that
 * offers tools, brought by the hook `via` names) and then in `beta` (none of them in any request).
 */
export async function memoryInItsProjectOnly(
  ask: (question: string, cwd: string) => Promise<ClientRun>,
  options: {
    /** The client's name in messages. */
    agent: string;
    /** The scripted model's recorded requests. */
    requests: readonly ModelRequest[];
    alpha: string;
    beta: string;
    question: string;
    titles: readonly string[];
    /** Whether a request body offers the client's tools (a turn's first request). */
    offersTools: (body: Record<string, unknown>) => boolean;
    /** The text of a request body. */
    text: (body: Record<string, unknown> | null) => string;
    /** What marks the context the prompt's hook added, and that hook's name. */
    via: { mark: RegExp; hook: string };
  },
): Promise<void> {
  const { requests, titles } = options;
  // Session 2 in alpha: every memory reaches the model's first request.
  const seenBefore = requests.length;
  const second = await ask(options.question, options.alpha);
  assert.equal(second.code, 0, second.stdout + second.stderr);
  assert.doesNotMatch(second.stderr, /hook/i, `${options.agent} complained about a hook`);
  const secondRequests = requests.slice(seenBefore).filter((r) =>
    r.body !== null && options.offersTools(r.body)
  );
  assert.ok(secondRequests.length > 0, "session 2 reached the model");
  const injected = options.text(secondRequests[0].body);
  for (const title of titles) {
    assert.ok(
      injected.includes(title),
      `session 2's first model request lacks the memory "${title}". Request: ${
        injected.slice(-4000)
      }`,
    );
  }
  assert.match(injected, options.via.mark, `it came through ${options.via.hook}'s context`);

  // Session 3 in beta: the same question, no memory of alpha's.
  const seenAlpha = requests.length;
  const third = await ask(options.question, options.beta);
  assert.equal(third.code, 0, third.stdout + third.stderr);
  const thirdRequests = requests.slice(seenAlpha).filter((r) => r.body !== null);
  assert.ok(thirdRequests.length > 0, "session 3 reached the model");
  for (const request of thirdRequests) {
    const text = options.text(request.body);
    assert.ok(titles.every((title) => !text.includes(title)), "alpha's memory in beta");
  }
}
