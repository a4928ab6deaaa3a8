import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * SPEC.md as the repository ships it (docs/SPEC.md, a copy of the specification kept beside the
 * repository in ../shared/SPEC.md), so `npx`/stdio agents read it from any clone; MCP_SPEC_PATH
 * overrides.
 */
export const DEFAULT_SPEC_PATH = resolve(dirname(fileURLToPath(import.meta.url)), "../docs/SPEC.md");

/** Where the specification's source of truth sits when the repository is checked out beside it. */
export const SHARED_SPEC_PATH = resolve(dirname(fileURLToPath(import.meta.url)), "../../shared/SPEC.md");
