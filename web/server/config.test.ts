import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, it } from "vitest";
import { apiEnv, parseEnv, webEnv } from "../../config/env.ts";
import { CONTRACT_NAMES } from "../../lib/deployments.ts";
import { configSource, contentSecurityPolicy, endpointsOf } from "./config.ts";

const ADDRESS = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const deployment = (first: number) => ({
  chainId: 31337,
  startBlock: 0,
  deployedAt: "2025-01-01T00:00:00.000Z",
  artifacts: Object.fromEntries(CONTRACT_NAMES.map((name) => [name, `artifacts/${name}.json`])),
  contracts: Object.fromEntries(CONTRACT_NAMES.map((name, i) => [name, ADDRESS(first + i)])),
  accounts: { admin: ADDRESS(9), relayer: ADDRESS(9), workerOperator: ADDRESS(9), treasury: ADDRESS(9) },
  mockAssets: true,
});

describe("endpointsOf", () => {
  it("points the browser at npm start's local services by default", () => {
    assert.deepEqual(endpointsOf(parseEnv(webEnv, {})), {
      ecosystemApiUrl: "http://127.0.0.1:42069",
      exchangeApiUrl: "http://127.0.0.1:8080",
      exchangeWsUrl: "ws://127.0.0.1:8080/ws",
      rpcUrl: "http://127.0.0.1:8545",
      chainId: 31337,
    });
  });

  it("uses the public URLs behind a proxy: wss for an https exchange, no trailing slash", () => {
    const env = parseEnv(webEnv, {
      API_PUBLIC_URL: "https://api.example.org/",
      EXCHANGE_PUBLIC_URL: "https://ex.example.org",
      WEB_RPC_URL: "https://rpc.example.org/v1/",
      CHAIN_ID: "8453",
    });
    assert.deepEqual(endpointsOf(env), {
      ecosystemApiUrl: "https://api.example.org",
      exchangeApiUrl: "https://ex.example.org",
      exchangeWsUrl: "wss://ex.example.org/ws",
      rpcUrl: "https://rpc.example.org/v1",
      chainId: 8453,
    });
  });

  it("serves on the origin the APIs allow by default (WEB_ORIGIN)", () => {
    const web = parseEnv(webEnv, {});
    assert.ok(parseEnv(apiEnv, {}).WEB_ORIGIN.includes(`http://${web.WEB_HOST}:${web.WEB_PORT}`));
  });
});

describe("contentSecurityPolicy", () => {
  it("lets the page connect to its configured origins only, and run no inline script", () => {
    const csp = contentSecurityPolicy(endpointsOf(parseEnv(webEnv, { EXCHANGE_URL: "http://10.0.0.2:9000" })));
    const directives = new Map(csp.split("; ").map((d) => [d.split(" ")[0], d.split(" ").slice(1)]));
    assert.deepEqual(directives.get("connect-src"), [
      "'self'",
      "http://127.0.0.1:42069",
      "http://10.0.0.2:9000",
      "ws://10.0.0.2:9000",
      "http://127.0.0.1:8545",
    ]);
    assert.deepEqual(directives.get("script-src"), ["'self'"]);
    assert.deepEqual(directives.get("frame-ancestors"), ["'none'"]);
    assert.deepEqual(directives.get("object-src"), ["'none'"]);
  });
});

describe("configSource", () => {
  let root = "";
  afterEach(() => rm(root, { recursive: true, force: true }));

  it("gives the deployment's contracts, re-read when the record changes; rejects without one", async () => {
    root = await mkdtemp(join(tmpdir(), "web-config-"));
    const read = configSource(parseEnv(webEnv, {}), root);
    await assert.rejects(read(), { message: "no deployment of chain 31337 yet (npm run deploy records one)" });
    await mkdir(join(root, "deployments"));
    const path = join(root, "deployments", "31337.json");
    await writeFile(path, "{");
    await assert.rejects(read(), { message: "the deployment record of chain 31337 cannot be read" });
    await writeFile(path, JSON.stringify(deployment(1)));
    const first = await read();
    assert.equal(first.chainId, 31337);
    assert.deepEqual(first.contracts, deployment(1).contracts);
    assert.equal(await read(), first, "an unchanged record is not read again");
    // A redeploy (npm start again) writes new addresses; a longer file is a new version even within one mtime tick.
    await writeFile(path, JSON.stringify({ ...deployment(100), deployedAt: "2025-01-02T00:00:00.000000Z" }));
    assert.deepEqual((await read()).contracts, deployment(100).contracts);
  });
});
