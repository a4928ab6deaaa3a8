import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { describe, it } from "vitest";
import { z } from "zod";
import * as envModule from "../../config/env.ts";
import {
  BASES,
  collectEnv,
  defaultText,
  READERS,
  renderEnvExample,
  renderTable,
  TABLE_END,
  TABLE_START,
  withTable,
} from "./env-docs.ts";
import { envDocs } from "./env-docs-files.ts";

describe("the environment's documentation", () => {
  it("the committed .env.example and configuration table are what config/env.ts generates (npm run gen:env)", async () => {
    for (const { path, expected } of await envDocs()) {
      assert.equal(await readFile(path, "utf8"), expected, `${path} drifted from config/env.ts: run npm run gen:env`);
    }
  });

  it("lists every variable every process parses, WRITES_THREAD included", async () => {
    const example = await readFile(new URL("../../.env.example", import.meta.url), "utf8");
    const listed = new Set([...example.matchAll(/^([A-Z0-9_]+)=/gm)].map((m) => m[1]));
    const schemas = new Map(
      Object.entries(envModule as Record<string, unknown>).flatMap(([name, value]) =>
        value instanceof z.ZodObject ? [[name, value] as const] : [],
      ),
    );
    const parsed = READERS.flatMap(([schema]) => Object.keys(schemas.get(schema)!.shape));
    assert.deepEqual([...listed].sort(), [...new Set(parsed)].sort());
    assert.ok(listed.has("WRITES_THREAD"));
  });

  it("knows every exported schema as a reader or a base", () => {
    const exported = Object.entries(envModule)
      .filter(([, value]) => value instanceof z.ZodObject)
      .map(([name]) => name);
    assert.deepEqual(exported.sort(), [...READERS.map(([schema]) => schema), ...BASES].sort());
  });
});

/** A config/env.ts of two readers, as source text and as the module it evaluates to. */
const SOURCE = `
export const chainEnv = z.object({
  /** Where the chain is. */
  RPC_URL: url.default("http://x"),
  /** A key. */
  KEY: z.string().optional(),
});
export const indexerEnv = base.extend({
  RPC_URL: url.default("http://x"),
  /** Polling, ms. */
  POLL_MS: n.default(1000),
});
export const base = z.object({
  /** Inherited. */
  LIMIT: n.default(60),
});
`;
const fakeModule = (extra: Record<string, z.ZodType> = {}) => {
  const base = z.object({ LIMIT: z.coerce.number().default(60) });
  return {
    chainEnv: z.object({ RPC_URL: z.url().default("http://x"), KEY: z.string().optional(), ...extra }),
    indexerEnv: base.extend({ RPC_URL: z.url().default("http://y"), POLL_MS: z.coerce.number().default(1000) }),
    base,
  };
};
const readers = [
  ["chainEnv", "deploy"],
  ["indexerEnv", "indexer"],
] as const;

describe("collectEnv", () => {
  it("takes names and defaults from the schemas, descriptions from the doc comments (inherited ones too)", () => {
    const vars = collectEnv(fakeModule(), SOURCE, { readers, bases: ["base"] });
    assert.deepEqual(
      vars.map((v) => [v.name, v.readers.join("+"), [...v.defaults.values()].join("|"), v.descriptions[0]!.text]),
      [
        ["RPC_URL", "deploy+indexer", "http://x|http://y", "Where the chain is."],
        ["KEY", "deploy", "", "A key."],
        ["LIMIT", "indexer", "60", "Inherited."],
        ["POLL_MS", "indexer", "1000", "Polling, ms."],
      ],
    );
    const table = renderTable(vars);
    assert.match(table, /\| `RPC_URL` \| `http:\/\/x` \(deploy\), `http:\/\/y` \(indexer\) \| deploy, indexer \|/);
    assert.match(table, /\| `KEY` \| unset \| deploy \| A key\. \|/);
    // Readers that disagree on the default: .env.example leaves it empty, each reader keeps its own.
    assert.match(renderEnvExample(vars), /\nRPC_URL=\n/);
  });

  it("refuses a variable without a doc comment, and a schema it does not know", () => {
    const undocumented = fakeModule({ NEW_VAR: z.string().optional() });
    assert.throws(() => collectEnv(undocumented, SOURCE, { readers, bases: ["base"] }), /no doc comment for NEW_VAR/);
    assert.throws(() => collectEnv(fakeModule(), SOURCE, { readers, bases: [] }), /exports base/);
  });

  it("reads defaults through transforms and pipes, and tells optional from required", () => {
    assert.equal(defaultText(envModule.apiEnv.shape.WEB_ORIGIN), "http://127.0.0.1:3000,http://localhost:3000");
    assert.equal(defaultText(envModule.writesEnv.shape.RELAYER_MIN_BALANCE_WEI), "10000000000000000");
    assert.equal(defaultText(envModule.gatewayEnv.shape.TRUST_PROXY), "false");
    assert.equal(defaultText(envModule.chainEnv.shape.SPAWN_FEE_WEI), null);
    assert.equal(defaultText(envModule.gatewayEnv.shape.NATS_URL), undefined);
  });
});

describe("withTable", () => {
  it("replaces only the text between the markers, and refuses a README without them", () => {
    const readme = `# Title\n\n${TABLE_START}\nold\n${TABLE_END}\n\nafter\n`;
    assert.equal(withTable(readme, "new"), `# Title\n\n${TABLE_START}\nnew\n${TABLE_END}\n\nafter\n`);
    assert.throws(() => withTable("# no markers\n", "new"), /env:start/);
  });
});
