import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** SPEC.md lives beside the repository (../shared/SPEC.md), as README.md says; MCP_SPEC_PATH overrides. */
export const DEFAULT_SPEC_PATH = resolve(dirname(fileURLToPath(import.meta.url)), "../../shared/SPEC.md");
