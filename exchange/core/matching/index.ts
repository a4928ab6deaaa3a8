export type * from "./types.ts";
export { FastBook } from "./fast-book.ts";
export { validatePlace } from "./validate.ts";
export { dealId } from "./deal-id.ts";
