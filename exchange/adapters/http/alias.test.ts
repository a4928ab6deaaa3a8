import assert from "node:assert/strict";
import { it } from "vitest";
import { z } from "zod";
import { defineRoute, operationIdOf } from "../../../lib/http/index.ts";
import { ALIAS_TAG, aliasOf } from "./alias.ts";

const pairs = defineRoute({
  method: "get",
  path: "/api/currencies/pairs",
  tag: "Reference",
  summary: "Settings of every active pair",
  description: "Sorted by code.",
  access: "public-or-signed",
  query: z.object({ currencyPairCode: z.string() }),
  response: z.array(z.string()),
  errors: [{ status: 400, code: "UNKNOWN_PAIR", when: "no such pair" }],
});

it("moves an /api route under /v1/spot/market, keeping its inputs, answer, errors and access", () => {
  const alias = aliasOf(pairs);
  assert.equal(alias.path, "/v1/spot/market/currencies/pairs");
  assert.equal(alias.tag, ALIAS_TAG);
  for (const key of ["method", "access", "query", "response", "errors"] as const) assert.equal(alias[key], pairs[key]);
  assert.equal(alias.summary, "Alias of GET /api/currencies/pairs: Settings of every active pair");
  assert.match(
    alias.description!,
    /^Alias of GET \/api\/currencies\/pairs: .*signs the URL it sends.* Sorted by code\.$/,
  );
  assert.notEqual(operationIdOf(alias.method, alias.path), operationIdOf(pairs.method, pairs.path));
});

it("says nothing of signing on public routes, and refuses a route outside /api", () => {
  assert.doesNotMatch(aliasOf({ ...pairs, access: "public" }).description!, /sign/);
  assert.throws(() => aliasOf({ ...pairs, path: "/apix/tickers" }), /not under \/api/);
  assert.throws(() => aliasOf({ ...pairs, path: "/admin/users" }), /not under \/api/);
});
