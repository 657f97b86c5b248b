/** @jsxImportSource hono/jsx */
/**
 * Server-rendered HTML: the page shell the client module fills in, and the pages shown without a
 * session (how to open the viewer, a spent link, not found).
 *
 * Everything here is static apart from escaped values, so the pages need no inline script or
 * style and the Content-Security-Policy can stay `'self'` only.
 *
 * @module
 */
import type { Child } from "hono/jsx";

/** The viewer's pages, as `data-page` names the client module dispatches on. */
export type PageName = "overview" | "feed" | "memories" | "memory" | "injections" | "graph";

/** The navigation: each page the shell links to, its path and its label (also its title). */
export const NAV: readonly { page: PageName; href: string; label: string }[] = [
  { page: "overview", href: "/ui", label: "Overview" },
  { page: "feed", href: "/ui/feed", label: "Live feed" },
  { page: "memories", href: "/ui/memories", label: "Memories" },
  { page: "injections", href: "/ui/injections", label: "Injections" },
  { page: "graph", href: "/ui/graph", label: "Graph" },
];

function Document(props: { title: string; script?: string; children: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <meta name="referrer" content="same-origin" />
        <title>{props.title} · kiro-learn</title>
        <link rel="icon" href="/ui/static/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="/ui/static/app.css" />
        {/* Classic, blocking script: applies the saved theme before first paint, wires the toggle. */}
        <script src="/ui/static/js/theme.js"></script>
        {props.script
          ? <script type="module" src={`/ui/static/js/${props.script}`}></script>
          : null}
      </head>
      <body>{props.children}</body>
    </html>
  );
}

function Brand(props: { version: string }) {
  return (
    <a class="brand" href="/ui">
      <img src="/ui/static/favicon.svg" alt="" width="22" height="22" />
      <span>kiro-learn</span>
      <small class="muted">v{props.version}</small>
    </a>
  );
}

function ThemeToggle() {
  return (
    <button type="button" id="theme-toggle" class="ghost" aria-label="Switch colour theme">
      Theme
    </button>
  );
}

/** Renders a JSX document to a full HTML string. */
function render(node: Child): string {
  return "<!doctype html>\n" + String(node);
}

/** The shell of one viewer page: header, navigation and an empty `main` for the client. */
export function shellPage(
  props: { page: PageName; title: string; version: string; recordId?: string },
): string {
  const active = props.page === "memory" ? "memories" : props.page;
  return render(
    <Document title={props.title} script="app.js">
      <header class="topbar">
        <Brand version={props.version} />
        <nav aria-label="Viewer pages">
          {NAV.map((n) => (
            <a href={n.href} aria-current={n.page === active ? "page" : undefined}>{n.label}</a>
          ))}
        </nav>
        <div class="topbar-end">
          <span id="health" class="health" data-state="connecting" role="status">
            Connecting…
          </span>
          <ThemeToggle />
          <form method="post" action="/ui/logout">
            <button type="submit" class="ghost">Sign out</button>
          </form>
        </div>
      </header>
      <main id="app" data-page={props.page} data-record-id={props.recordId}>
        <noscript>The viewer needs JavaScript enabled (it only talks to this collector).</noscript>
        <p class="muted loading">Loading…</p>
      </main>
    </Document>,
  );
}

function Standalone(
  props: { title: string; version: string; script?: string; children: Child },
) {
  return (
    <Document title={props.title} script={props.script}>
      <header class="topbar">
        <Brand version={props.version} />
        <div class="topbar-end">
          <ThemeToggle />
        </div>
      </header>
      <main class="standalone">{props.children}</main>
    </Document>
  );
}

/** The page every `/ui` URL shows without a session: how to get one. */
export function howToOpenPage(props: { version: string }): string {
  return render(
    <Standalone title="Open the viewer" version={props.version}>
      <section class="card howto" data-testid="how-to-open">
        <h1>Open the viewer from a terminal</h1>
        <p>
          This browser has no viewer session. Sessions are granted from the terminal so that other
          web pages and other users on this machine cannot read your agents' project memory.
        </p>
        <ol>
          <li>
            On this machine, run <code class="command">kiro-learn open</code>{" "}
            <span class="muted">
              (or <code>deno task kiro-learn open</code> in a checkout).
            </span>
          </li>
          <li>
            It prints a one-time link and opens it in your browser when it can. The link works once
            and expires after 60 seconds.
          </li>
        </ol>
        <p class="muted">
          A session ends after 12 hours without use, when you sign out, or when the collector
          restarts.
        </p>
      </section>
    </Standalone>,
  );
}

/**
 * The login page: the same for everyone, it holds nothing. Its module (`login.js`) reads the
 * one-time code from the URL's fragment, posts it, keeps the session's key in this tab and goes
 * on to the overview; a spent, expired or unknown code shows the second section instead.
 */
export function loginPage(props: { version: string }): string {
  return render(
    <Standalone title="Signing in" version={props.version} script="login.js">
      <section class="card howto" id="login" data-testid="login" data-state="pending">
        <h1>Signing in…</h1>
        <noscript>The viewer needs JavaScript enabled (it only talks to this collector).</noscript>
      </section>
      <section class="card howto" data-testid="link-expired" hidden>
        <h1>This link has expired or was already used</h1>
        <p>
          Viewer links work once and only for 60 seconds. Run{" "}
          <code class="command">kiro-learn open</code> again for a fresh one.
        </p>
      </section>
    </Standalone>,
  );
}

/** A viewer URL that names no page. */
export function notFoundPage(props: { version: string }): string {
  return render(
    <Standalone title="Not found" version={props.version}>
      <section class="card howto">
        <h1>No such page</h1>
        <p>
          <a href="/ui">Back to the overview</a>
        </p>
      </section>
    </Standalone>,
  );
}
