import { describe, it } from "vitest";
import assert from "node:assert/strict";
import { DEFAULT_WRAPPED_NATIVE_PRICE } from "../api/shared/units.ts";
import { DEFAULT_STREAM_SETTINGS } from "../api/streams/index.ts";
import { chainEnv, ecosystemApiEnv, exchangeEnv, parseEnv } from "./env.ts";

describe("parseEnv", () => {
  it("applies defaults and treats empty strings as unset", () => {
    const env = parseEnv(chainEnv, { RPC_URL: "", SPAWN_FEE_WEI: "10" });
    assert.equal(env.RPC_URL, "http://127.0.0.1:8545");
    assert.equal(env.SPAWN_FEE_WEI, 10n);
    assert.equal(env.DEPLOYER_PRIVATE_KEY, undefined);
  });

  it("names every bad variable in one error", () => {
    assert.throws(
      () => parseEnv(chainEnv, { RPC_URL: "not a url", RELAYER_ADDRESS: "0x1234", SPAWN_FEE_WEI: "1.5" }),
      (error: Error) =>
        /RPC_URL/.test(error.message) && /RELAYER_ADDRESS/.test(error.message) && /SPAWN_FEE_WEI/.test(error.message),
    );
  });
});

describe("ecosystemApiEnv", () => {
  it("reads the reference price exactly in stable base units, with the API's default", () => {
    assert.equal(parseEnv(ecosystemApiEnv, {}).WRAPPED_NATIVE_PRICE, DEFAULT_WRAPPED_NATIVE_PRICE);
    assert.equal(parseEnv(ecosystemApiEnv, { WRAPPED_NATIVE_PRICE: "1234.5" }).WRAPPED_NATIVE_PRICE, 1_234_500_000n);
    assert.throws(() => parseEnv(ecosystemApiEnv, { WRAPPED_NATIVE_PRICE: "0.1234567" }), /WRAPPED_NATIVE_PRICE/);
    assert.throws(() => parseEnv(ecosystemApiEnv, { WRAPPED_NATIVE_PRICE: "-1" }), /WRAPPED_NATIVE_PRICE/);
  });

  it("has the event streams' defaults the API has, and refuses a poll faster than 50 ms", () => {
    const env = parseEnv(ecosystemApiEnv, {});
    assert.deepEqual(
      {
        pollMs: env.SSE_POLL_MS,
        reorgWindowBlocks: env.SSE_REORG_WINDOW_BLOCKS,
        maxConnectionsPerIp: env.SSE_MAX_CONNECTIONS_PER_IP,
        maxConnections: env.SSE_MAX_CONNECTIONS,
      },
      DEFAULT_STREAM_SETTINGS,
    );
    assert.throws(() => parseEnv(ecosystemApiEnv, { SSE_POLL_MS: "10" }), /SSE_POLL_MS/);
  });

  it("bounds the explorer limits", () => {
    const env = parseEnv(ecosystemApiEnv, {});
    assert.deepEqual([env.SQL_STATEMENT_TIMEOUT_MS, env.SQL_MAX_COST, env.SQL_MAX_ROWS], [3_000, 100_000, 50_000]);
    assert.throws(() => parseEnv(ecosystemApiEnv, { SQL_STATEMENT_TIMEOUT_MS: "0" }), /SQL_STATEMENT_TIMEOUT_MS/);
  });
});

describe("WEB_ORIGIN", () => {
  it("lists the web app's origins, the local ones by default, for both APIs", () => {
    for (const schema of [ecosystemApiEnv, exchangeEnv]) {
      assert.deepEqual(parseEnv(schema, {}).WEB_ORIGIN, ["http://127.0.0.1:3000", "http://localhost:3000"]);
    }
    assert.deepEqual(
      parseEnv(ecosystemApiEnv, { WEB_ORIGIN: " https://app.example.org , http://[::1]:3000" }).WEB_ORIGIN,
      ["https://app.example.org", "http://[::1]:3000"],
    );
  });

  it("refuses a wildcard, a path or a bare host", () => {
    for (const value of ["*", "https://*.example.org", "https://app.example.org/", "app.example.org"]) {
      assert.throws(() => parseEnv(ecosystemApiEnv, { WEB_ORIGIN: value }), /WEB_ORIGIN/, value);
    }
  });
});
