/**
 * Writes indexer/abis.ts: the ABIs of the contracts the indexer and the APIs read, as `const`
 * literals so Ponder and viem can type every event and call. Run after changing a contract
 * (`npm run abis`); a unit test fails while the file and the artifacts disagree.
 */
import { writeFile } from "node:fs/promises";
import { renderAbis } from "../indexer/abis-source.ts";

const path = "indexer/abis.ts";
await writeFile(path, await renderAbis());
console.log(`wrote ${path}`);
