// /openapi.json: the document generated from the route specs.
export { openApiDocument } from "./document.ts";
export type { DocumentInfo } from "./document.ts";
