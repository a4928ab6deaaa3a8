import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { chainEnv, parseEnv } from "./env.ts";

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
