import { describe, expect, it } from "vitest";
import { parseWebConfig } from "./config.ts";

const valid = {
  ecosystemApiUrl: "http://127.0.0.1:42069",
  exchangeApiUrl: "http://127.0.0.1:8080",
  exchangeWsUrl: "ws://127.0.0.1:8080/ws",
  rpcUrl: "http://127.0.0.1:8545",
  chainId: 31337,
  contracts: {
    AgentSpawner: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
    AgentRegistry: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512",
    WorkerVoting: "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0",
    Booster: "0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9",
    AgentPool: "0xDc64a140Aa3E981100a9becA4E685f962f0cF6C9",
  },
};

describe("parseWebConfig", () => {
  it("accepts the shape the web server writes, extra contracts kept", () => {
    const config = parseWebConfig(valid);
    expect(config.chainId).toBe(31337);
    expect(config.contracts.AgentPool).toBe(valid.contracts.AgentPool);
  });

  it("names every bad field", () => {
    expect(() =>
      parseWebConfig({ ...valid, exchangeWsUrl: "http://x/ws", contracts: { ...valid.contracts, Booster: "0x12" } }),
    ).toThrow(/exchangeWsUrl: must be a ws\(s\) URL; contracts\.Booster: must be a 0x-prefixed/);
  });
});
