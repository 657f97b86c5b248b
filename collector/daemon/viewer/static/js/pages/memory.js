// One memory: its fields and source events, editing, and forgetting it.
import { api, ApiError, loadProjects, projectName } from "../api.js";
import { append, badge, card, errorBox, fill, h } from "../dom.js";
import { clip, when } from "../format.js";
import { FLASH_KEY } from "./memories.js";

/**
 * @typedef {import("../types.js").MemoryRecord} MemoryRecord
 * @typedef {import("../types.js").StoredEvent} StoredEvent
 */

/** @param {any} body */
function eventText(body) {
  if (body?.type === "text") return body.content;
  if (body?.type === "message") {
    return body.turns.map((/** @type {{role: string, content: string}} */ t) =>
      `${t.role}: ${t.content}`
    ).join("\n\n");
  }
  return JSON.stringify(body?.data, null, 2) ?? "";
}

/** @param {HTMLElement} main */
export async function memoryPage(main) {
  const id = main.dataset.recordId ?? "";
  const projects = await loadProjects();
  /** @type {{record: MemoryRecord, source_events: StoredEvent[], provenance?: {actor: string, role: string, client: string, changed_by_role: string, changed_by_client: string} | null}} */
  let data;
  try {
    data = await api(`/v1/memories/${encodeURIComponent(id)}`);
  } catch (error) {
    fill(
      main,
      h("p", null, h("a", { href: "/ui/memories" }, "← Memories")),
      error instanceof ApiError && error.status === 404
        ? card(
          "Memory not found",
          h(
            "p",
            { "data-testid": "not-found" },
            `There is no memory ${id}. It may have been forgotten.`,
          ),
        )
        : errorBox(error),
    );
    return;
  }
  /** @type {string | null} */
  let notice = null;

  const render = () => {
    const r = data.record;
    const dialog = forgetDialog(r);
    fill(
      main,
      h("p", null, h("a", { href: "/ui/memories" }, "← Memories")),
      notice
        ? h("div", { class: "notice", role: "status", "data-testid": "notice" }, notice)
        : null,
      h(
        "section",
        { class: "card detail-head" },
        h("h1", { "data-testid": "memory-title" }, r.title),
        h(
          "div",
          { class: "meta" },
          badge(r.observation_type),
          badge(r.strategy),
          h(
            "a",
            { href: `/ui/memories?ns=${encodeURIComponent(r.namespace)}`, title: r.namespace },
            projectName(projects, r.namespace),
          ),
          h("span", { class: "muted" }, "·"),
          when(r.created_at),
          h("span", { class: "muted mono" }, r.record_id),
          data.provenance
            ? h(
              "span",
              { class: "muted", "data-testid": "provenance" },
              `from ${data.provenance.actor} (role ${data.provenance.role}, machine ` +
                `${data.provenance.client})`,
            )
            : null,
        ),
        h("p", { class: "summary", "data-testid": "memory-summary" }, r.summary),
        h(
          "div",
          { class: "actions" },
          h("button", { type: "button", class: "ghost", onclick: () => edit() }, "Edit"),
          h(
            "button",
            { type: "button", class: "danger ghost", onclick: () => dialog.showModal() },
            "Forget…",
          ),
        ),
      ),
      h(
        "div",
        { class: "grid two" },
        card(
          "Facts",
          r.facts.length
            ? h(
              "ul",
              { class: "plain", "data-testid": "facts" },
              r.facts.map((f) => h("li", null, f)),
            )
            : h("p", { class: "muted" }, "No facts."),
        ),
        card(
          "Concepts and files",
          r.concepts.length
            ? h(
              "ul",
              { class: "chips", "data-testid": "concepts" },
              r.concepts.map((c) => h("li", { class: "chip" }, c)),
            )
            : h("p", { class: "muted" }, "No concepts."),
          h("h3", { class: "spaced" }, "Files touched"),
          r.files_touched.length
            ? h(
              "ul",
              { class: "plain mono", "data-testid": "files" },
              r.files_touched.map((f) => h("li", null, f)),
            )
            : h("p", { class: "muted" }, "No files."),
        ),
      ),
      card(
        `Source events (${r.source_event_ids.length})`,
        h(
          "div",
          { "data-testid": "source-events" },
          data.source_events.map((e) =>
            h(
              "div",
              { class: "event", "data-testid": "source-event" },
              h(
                "div",
                { class: "head" },
                badge(e.kind),
                when(e.valid_time),
                h(
                  "span",
                  { class: "muted" },
                  `${e.source.surface} · session ${clip(e.session_id, 24)}`,
                ),
                h("span", { class: "muted mono" }, e.event_id),
              ),
              h("pre", { class: "body" }, clip(eventText(e.body), 4000)),
            )
          ),
          data.source_events.length < r.source_event_ids.length
            ? h(
              "p",
              { class: "muted" },
              `${
                r.source_event_ids.length - data.source_events.length
              } source events are not stored (or beyond the first 100).`,
            )
            : null,
        ),
      ),
      dialog,
    );
  };

  const edit = () => {
    const r = data.record;
    const title = /** @type {HTMLInputElement} */ (h("input", {
      name: "title",
      value: r.title,
      maxlength: 200,
      required: true,
    }));
    const summary = /** @type {HTMLTextAreaElement} */ (h("textarea", {
      name: "summary",
      rows: 6,
      maxlength: 4000,
      required: true,
    }));
    summary.value = r.summary;
    const facts = /** @type {HTMLTextAreaElement} */ (h("textarea", { name: "facts", rows: 6 }));
    facts.value = r.facts.join("\n");
    const concepts = /** @type {HTMLInputElement} */ (h("input", {
      name: "concepts",
      value: r.concepts.join(", "),
    }));
    const problem = h("div");
    const save = /** @type {HTMLButtonElement} */ (h("button", { type: "submit" }, "Save"));
    const form = h(
      "form",
      {
        class: "card edit-form",
        "data-testid": "edit-form",
        onsubmit: async (/** @type {Event} */ e) => {
          e.preventDefault();
          /** @type {Record<string, unknown>} */
          const patch = {};
          const nextFacts = facts.value.split("\n").map((f) => f.trim()).filter(Boolean);
          const nextConcepts = concepts.value.split(",").map((c) => c.trim()).filter(Boolean);
          if (title.value.trim() !== r.title) patch.title = title.value.trim();
          if (summary.value.trim() !== r.summary) patch.summary = summary.value.trim();
          if (JSON.stringify(nextFacts) !== JSON.stringify(r.facts)) patch.facts = nextFacts;
          if (JSON.stringify(nextConcepts) !== JSON.stringify(r.concepts)) {
            patch.concepts = nextConcepts;
          }
          if (Object.keys(patch).length === 0) {
            notice = "Nothing changed.";
            render();
            return;
          }
          save.disabled = true;
          try {
            const updated = await api(`/v1/memories/${encodeURIComponent(r.record_id)}`, {
              method: "PATCH",
              json: patch,
            });
            data = { ...data, record: updated };
            notice = "Saved.";
            render();
          } catch (error) {
            save.disabled = false;
            const details = error instanceof ApiError && Array.isArray(error.details)
              ? error.details.map((/** @type {any} */ d) =>
                `${(d.path ?? []).join(".")}: ${d.message}`
              ).join("; ")
              : "";
            fill(
              problem,
              errorBox(details ? `${/** @type {Error} */ (error).message}: ${details}` : error),
            );
          }
        },
      },
      h("h2", null, "Edit memory"),
      problem,
      h("label", null, "Title", title),
      h("label", null, "Summary", summary),
      h("label", null, "Facts (one per line)", facts),
      h("label", null, "Concepts (comma-separated)", concepts),
      h(
        "div",
        { class: "actions" },
        save,
        h("button", {
          type: "button",
          class: "ghost",
          onclick: () => {
            notice = null;
            render();
          },
        }, "Cancel"),
      ),
    );
    const head = main.querySelector(".detail-head");
    head?.replaceWith(form);
    title.focus();
  };

  /** @param {MemoryRecord} r */
  const forgetDialog = (r) => {
    const dialog = /** @type {HTMLDialogElement} */ (h("dialog", {
      "data-testid": "forget-dialog",
      "aria-labelledby": "forget-title",
    }));
    const problem = h("div");
    const confirm = /** @type {HTMLButtonElement} */ (h("button", {
      type: "button",
      class: "danger",
      "data-testid": "confirm-forget",
      onclick: async () => {
        confirm.disabled = true;
        try {
          await api(`/v1/memories/${encodeURIComponent(r.record_id)}`, { method: "DELETE" });
          sessionStorage.setItem(FLASH_KEY, `Forgot “${r.title}”.`);
          location.assign("/ui/memories");
        } catch (error) {
          confirm.disabled = false;
          fill(problem, errorBox(error));
        }
      },
    }, "Forget memory"));
    append(dialog, [
      h("h2", { id: "forget-title" }, "Forget this memory?"),
      h(
        "p",
        null,
        `“${r.title}” will be deleted with its embedding and search entries, and will no longer be injected into prompts. `,
        "The events it came from are kept. This cannot be undone.",
      ),
      problem,
      h(
        "div",
        { class: "actions" },
        h("button", {
          type: "button",
          class: "ghost",
          autofocus: true,
          onclick: () => dialog.close(),
        }, "Cancel"),
        confirm,
      ),
    ]);
    return dialog;
  };

  render();
}
