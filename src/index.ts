// Ponder's indexing entry point: the handlers live in indexer/handlers.
import "../indexer/handlers/index.ts";
