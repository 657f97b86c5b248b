// Loaded as a classic, blocking script in <head>: applies the saved colour theme before the first
// paint (no flash of the wrong theme) and wires the toggle button. No inline script is needed, so
// the Content-Security-Policy can stay `script-src 'self'`.
(() => {
  "use strict";
  const KEY = "kiro-learn-theme";
  const root = document.documentElement;
  const media = matchMedia("(prefers-color-scheme: dark)");

  /** @returns {"dark" | "light" | null} */
  function saved() {
    try {
      const value = localStorage.getItem(KEY);
      return value === "dark" || value === "light" ? value : null;
    } catch {
      return null;
    }
  }

  function effective() {
    const explicit = root.getAttribute("data-theme");
    if (explicit === "dark" || explicit === "light") return explicit;
    return media.matches ? "dark" : "light";
  }

  /** @param {HTMLElement} button */
  function label(button) {
    const next = effective() === "dark" ? "light" : "dark";
    button.textContent = next === "dark" ? "Dark mode" : "Light mode";
    button.setAttribute("aria-label", `Switch to ${next} mode`);
  }

  const initial = saved();
  if (initial) root.setAttribute("data-theme", initial);

  document.addEventListener("DOMContentLoaded", () => {
    const button = document.getElementById("theme-toggle");
    if (!button) return;
    label(button);
    button.addEventListener("click", () => {
      const next = effective() === "dark" ? "light" : "dark";
      root.setAttribute("data-theme", next);
      try {
        localStorage.setItem(KEY, next);
      } catch {
        // Private mode: the choice lasts for this page only.
      }
      label(button);
    });
    media.addEventListener("change", () => label(button));
  });
})();
