// The very configuration our app indexes with (same contracts, factories, start block and
// chain settings), so the no-op app fetches and decodes exactly the same events.
export { default } from "../../../indexer/ponder-config.ts";
