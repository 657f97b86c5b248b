/**
 * Kiro IDE: 1.x reads the v1 hook file the Kiro CLI module writes; 0.x needs its own
 * `.kiro.hook` files (`--kiro-ide-legacy`) — what install writes, what uninstall takes out, and
 * where doctor looks.
 *
 * @module
 */
import { join } from "node:path";
import { isPlainObject, type JsonObject } from "./_json_file.ts";
import { isOurCommand } from "./shell.ts";
import { KIRO_V3_HOOKS } from "./_agent_kiro_cli.ts";
import type { AgentInstaller, DoctorSource } from "./_target.ts";

/** The legacy Kiro IDE 0.x hook files (`--kiro-ide-legacy`). */
export const KIRO_IDE_HOOKS: readonly {
  file: string;
  event: string;
  description: string;
  toolTypes?: string[];
}[] = [
  {
    file: "kiro-learn-prompt.kiro.hook",
    event: "promptSubmit",
    description: "kiro-learn: capture each prompt and add relevant memories to it",
  },
  {
    file: "kiro-learn-tool.kiro.hook",
    event: "postToolUse",
    description: "kiro-learn: capture each tool use",
    toolTypes: ["*"],
  },
  {
    file: "kiro-learn-stop.kiro.hook",
    event: "agentStop",
    description: "kiro-learn: capture the end of each turn",
  },
];

function ideHookFile(spec: (typeof KIRO_IDE_HOOKS)[number], command: string): JsonObject {
  return {
    enabled: true,
    name: spec.file.replace(/\.kiro\.hook$/, ""),
    description: spec.description,
    version: "1",
    when: { type: spec.event, ...(spec.toolTypes ? { toolTypes: [...spec.toolTypes] } : {}) },
    then: { type: "runCommand", command },
  };
}

/** Kiro IDE's part of the installer. */
export const KIRO_IDE: AgentInstaller = {
  name: "Kiro IDE",
  // The 1.x hook file or the 0.x hook files.
  alternatives: true,
  kinds: {
    "kiro-ide-hook": {
      scope: "project",
      files: (at) => KIRO_IDE_HOOKS.map((h) => join(at.kiroHooksDir, h.file)),
    },
  },
  target(kind, path, { hooks }) {
    const ours = (command: unknown) => isOurCommand(command, hooks.known);
    const spec = KIRO_IDE_HOOKS.find((h) => path.endsWith(h.file));
    if (!spec) throw new Error(`not a kiro-learn IDE hook file: ${path}`);
    return {
      kind,
      path,
      label: `Kiro IDE 0.x hook (${spec.event})`,
      owned: true,
      roots: [],
      install: () => ideHookFile(spec, hooks.kiroIde(spec.event)),
      strip: (doc) => doc,
      recognise: (doc) => isPlainObject(doc.then) && ours(doc.then.command),
      residual: () => true,
    };
  },
  hookCommands(kind, doc, add) {
    if (kind !== "kiro-ide-hook") return;
    if (isPlainObject(doc.when) && isPlainObject(doc.then) && typeof doc.when.type === "string") {
      add(doc.when.type, doc.then.command);
    }
  },
  doctorSources(paths) {
    return [
      ["kiro-hooks", paths.kiroHooks, KIRO_V3_HOOKS.map((h) => h.trigger)],
      ...KIRO_IDE_HOOKS.map((h): DoctorSource => [
        "kiro-ide-hook",
        join(paths.kiroHooksDir, h.file),
        [h.event],
      ]),
    ];
  },
};
