import { describe, it } from "vitest";
import assert from "node:assert/strict";
import { encodeErrorResult, parseAbi, zeroAddress } from "viem";
import { DEFAULT_SETTINGS } from "../../scripts/lib/deploy-ecosystem.ts";
import { deployFixture } from "../../support/contracts/fixtures.ts";

// A mis-wired deployment must fail at deploy time, not on the first user transaction.
describe("constructors reject zero addresses", async () => {
  const f = await deployFixture();
  const { viem, wallets } = f;
  const admin = wallets.admin.account.address;
  // Deployment reverts carry no contract to decode against: match the raw revert data instead.
  const expected = encodeErrorResult({
    abi: parseAbi(["error InvalidAddress(address account)"]),
    errorName: "InvalidAddress",
    args: [zeroAddress],
  });
  const invalid = (error: unknown) => {
    for (let e = error as { data?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
      if (e.data === expected) return true;
    }
    return false;
  };
  const spawnerSettings = {
    spawnFee: DEFAULT_SETTINGS.spawnFee,
    cooldown: DEFAULT_SETTINGS.spawnCooldownSeconds,
    feeTier: DEFAULT_SETTINGS.poolFeeTier,
    stableVirtualReserve: DEFAULT_SETTINGS.stableVirtualReserve,
    nativeVirtualReserve: DEFAULT_SETTINGS.nativeVirtualReserve,
    workerOperator: wallets.operator.account.address,
  };
  const spawnerArgs = [
    f.registry.address,
    f.tokenImplementation.address,
    f.poolImplementation.address,
    f.stableToken.address,
    f.wrappedNative.address,
    admin,
  ] as const;

  it("AgentSpawner: registry, implementations, assets, admin and worker operator", async () => {
    for (let i = 0; i < spawnerArgs.length; i++) {
      const args = [...spawnerArgs] as [
        `0x${string}`,
        `0x${string}`,
        `0x${string}`,
        `0x${string}`,
        `0x${string}`,
        `0x${string}`,
      ];
      args[i] = zeroAddress;
      await assert.rejects(viem.deployContract("AgentSpawner", [...args, spawnerSettings]), invalid, `argument ${i}`);
    }
    await assert.rejects(
      viem.deployContract("AgentSpawner", [...spawnerArgs, { ...spawnerSettings, workerOperator: zeroAddress }]),
      invalid,
    );
    await viem.deployContract("AgentSpawner", [...spawnerArgs, spawnerSettings]);
  });

  it("WorkerVoting, Booster and AgentRegistry: registry, admin and treasury", async () => {
    await assert.rejects(viem.deployContract("WorkerVoting", [zeroAddress, admin, 3600n, 3600n, 400, 5000]), invalid);
    await assert.rejects(
      viem.deployContract("WorkerVoting", [f.registry.address, zeroAddress, 3600n, 3600n, 400, 5000]),
      invalid,
    );
    await assert.rejects(viem.deployContract("Booster", [zeroAddress, admin, admin]), invalid);
    await assert.rejects(viem.deployContract("Booster", [f.registry.address, zeroAddress, admin]), invalid);
    await assert.rejects(viem.deployContract("Booster", [f.registry.address, admin, zeroAddress]), invalid);
    await assert.rejects(viem.deployContract("AgentRegistry", [zeroAddress]), invalid);
  });
});
