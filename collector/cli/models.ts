/**
 * `kiro-learn models add`: install an ONNX sentence-transformer for embeddings.
 *
 * @module
 */
import { loadSettings } from "@kiro-learn/core/settings";
import { addModel, ModelError } from "../daemon/embedding/mod.ts";
import { type Command, stringOption, UsageError, userPath } from "./_command.ts";

/** The `models` command. */
export const modelsCommand: Command = {
  name: "models",
  usage: "kiro-learn models add <dir> [--name NAME]",
  summary: "install an ONNX sentence-transformer (model.onnx + tokenizer.json) for embeddings",
  options: { name: { type: "string" } },
  run: async (args) => {
    if (args.positionals[0] !== "add" || args.positionals.length !== 2) {
      throw new UsageError("models needs `add <dir>`");
    }
    const settings = loadSettings();
    try {
      const added = await addModel(userPath(args.positionals[1]), {
        dataDir: settings.dataDir,
        name: stringOption(args, "name"),
      });
      console.log(
        `installed ${added.model_id} (${added.dim} dimensions) in ${added.dir}\n` +
          `set "embedding": {"backend": "onnx"} in ${settings.paths.settings} and restart ` +
          "the collector; records are re-embedded in the background",
      );
      return 0;
    } catch (error) {
      if (error instanceof ModelError) {
        console.error(`kiro-learn models add: ${error.message}`);
        return 1;
      }
      throw error;
    }
  },
};
