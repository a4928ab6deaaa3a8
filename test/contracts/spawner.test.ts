import { describe, it } from "vitest";
import assert from "node:assert/strict";
import { type Address, type Hash, getAddress, getContractAddress, parseEventLogs, zeroAddress } from "viem";
import { ROLE } from "../../scripts/lib/deploy-ecosystem.ts";
import {
  deployFixture,
  EMPTY_METADATA,
  POOL_SIDE,
  WORKER_STATUS,
  type Fixture,
} from "../../support/contracts/fixtures.ts";

type Wallet = Fixture["wallets"]["alice"];
type Side = (typeof POOL_SIDE)[keyof typeof POOL_SIDE];
type Metadata = { description: string; logoUri: string; website: string };

const BURN_ADDRESS = getAddress("0x000000000000000000000000000000000000dEaD");
const ONE_TOKEN = 10n ** 18n;
const DEFAULT_SUPPLY = 1_000_000_000n * ONE_TOKEN;
const MIN_SUPPLY = ONE_TOKEN;
const MAX_SUPPLY = 1_000_000_000_000n * ONE_TOKEN;
const MEV_PRIVATE_RELAY = 1;
const METADATA: Metadata = {
  description: "Trades momentum on mid caps",
  logoUri: "ipfs://bafy-logo",
  website: "https://alpha.example",
};

/** Runtime code of an EIP-1167 minimal proxy delegating to `implementation`. */
function minimalProxyCode(implementation: Address) {
  return `0x363d3d373d3d3d363d73${implementation.slice(2).toLowerCase()}5af43d82803e903d91602b57fd5bf3`;
}

function sameAddress(actual: string, expected: string, message?: string) {
  assert.equal(getAddress(actual), getAddress(expected), message);
}

interface SpawnInput {
  name?: string;
  symbol?: string;
  totalSupply?: bigint;
  side?: Side;
  metadata?: Metadata;
  value?: bigint;
}

describe("AgentSpawner", async () => {
  const f = await deployFixture();
  const { spawner, registry, stableToken, wrappedNative, viem, publicClient, networkHelpers, settings } = f;
  const { admin, relayer, operator, alice, bob, carol, dave } = f.wallets;
  const fee = settings.spawnFee;

  // Every test starts from the freshly deployed ecosystem (snapshot restore, no redeploy).
  async function deployedEcosystem() {
    return {};
  }
  const fresh = () => networkHelpers.loadFixture(deployedEcosystem);

  function spawnArgs(input: SpawnInput) {
    return [
      input.name ?? "Alpha Agent",
      input.symbol ?? "ALPHA",
      input.totalSupply ?? 0n,
      input.side ?? POOL_SIDE.STABLE,
      input.metadata ?? EMPTY_METADATA,
    ] as const;
  }

  function sendSpawn(from: Wallet, input: SpawnInput = {}) {
    return spawner.write.spawn(spawnArgs(input), { account: from.account, value: input.value ?? fee });
  }

  function sendSpawnFor(owner: Address, input: SpawnInput = {}, from: Wallet = relayer) {
    return spawner.write.spawnFor([owner, ...spawnArgs(input)], { account: from.account, value: input.value ?? fee });
  }

  /** Waits for a spawn, checks the spawner kept nothing, and returns the AgentSpawned args. */
  async function settleSpawn(hashPromise: Promise<Hash>) {
    const receipt = await publicClient.waitForTransactionReceipt({ hash: await hashPromise });
    assert.equal(receipt.status, "success");
    assert.equal(await publicClient.getBalance({ address: spawner.address }), 0n, "spawner must keep no balance");
    const events = parseEventLogs({ abi: spawner.abi, eventName: "AgentSpawned", logs: receipt.logs });
    assert.equal(events.length, 1);
    const block = await publicClient.getBlock({ blockNumber: receipt.blockNumber });
    return { ...events[0].args, receipt, timestamp: block.timestamp };
  }

  const spawn = (from: Wallet, input: SpawnInput = {}) => settleSpawn(sendSpawn(from, input));
  const spawnFor = (owner: Address, input: SpawnInput = {}) => settleSpawn(sendSpawnFor(owner, input));

  /** Clone addresses come from the spawner's CREATE nonce: token first, then pool. */
  async function predictClones() {
    const nonce = BigInt(await publicClient.getTransactionCount({ address: spawner.address }));
    return {
      token: getContractAddress({ from: spawner.address, nonce }),
      pool: getContractAddress({ from: spawner.address, nonce: nonce + 1n }),
    };
  }

  const tokenAt = (address: Address) => viem.getContractAt("AgentToken", address);
  const poolAt = (address: Address) => viem.getContractAt("AgentPool", address);

  async function disableCooldown() {
    await spawner.write.setCooldown([0n], { account: admin.account });
  }

  describe("spawn", () => {
    it("creates token, pool, NFT and worker in one transaction and emits every AgentSpawned field", async () => {
      await fresh();
      const expected = await predictClones();
      const poolSupply = DEFAULT_SUPPLY;
      const input = { name: "Alpha Agent", symbol: "ALPHA", metadata: METADATA };

      const { result } = await spawner.simulate.spawn(spawnArgs(input), {
        account: alice.account.address,
        value: fee,
      });
      sameAddress(result[0], expected.token);
      sameAddress(result[1], expected.pool);
      assert.equal(result[2], 1n);
      assert.equal(result[3], 1n);

      const hash = await sendSpawn(alice, input);
      await viem.assertions.emitWithArgs(hash, spawner, "AgentSpawned", [
        expected.token,
        alice.account.address,
        expected.pool,
        1n,
        1n,
        "Alpha Agent",
        "ALPHA",
        DEFAULT_SUPPLY,
        poolSupply,
        POOL_SIDE.STABLE,
        stableToken.address,
        settings.poolFeeTier,
        settings.stableVirtualReserve,
        METADATA,
        fee,
      ]);

      // All four artefacts were produced by this single transaction.
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      const emitters = new Set(receipt.logs.map((log) => getAddress(log.address)));
      for (const address of [expected.token, expected.pool, registry.address, spawner.address]) {
        assert.ok(emitters.has(getAddress(address)), `no log from ${address} in the spawn transaction`);
      }

      const [tokenImplementation, poolImplementation] = await spawner.read.implementations();
      assert.equal(await publicClient.getCode({ address: expected.token }), minimalProxyCode(tokenImplementation));
      assert.equal(await publicClient.getCode({ address: expected.pool }), minimalProxyCode(poolImplementation));

      const token = await tokenAt(expected.token);
      const pool = await poolAt(expected.pool);
      sameAddress(await token.read.pool(), expected.pool);
      sameAddress(await pool.read.token(), expected.token);
      sameAddress(await pool.read.pairAsset(), stableToken.address);
      sameAddress(await registry.read.ownerOf([1n]), alice.account.address);
      sameAddress(await registry.read.tokenOfAgent([1n]), expected.token);
      assert.equal(await registry.read.agentOfToken([expected.token]), 1n);
      assert.equal(await registry.read.workerOfAgent([1n]), 1n);
    });

    it("mints the default supply of 1e9 tokens when totalSupply is 0, all of it into the pool", async () => {
      await fresh();
      const s = await spawn(alice, { totalSupply: 0n });
      const token = await tokenAt(s.token!);
      assert.equal(s.totalSupply, DEFAULT_SUPPLY);
      assert.equal(s.poolSupply, DEFAULT_SUPPLY);
      assert.equal(await token.read.totalSupply(), DEFAULT_SUPPLY);
      assert.equal(await token.read.balanceOf([s.pool!]), DEFAULT_SUPPLY);
      // Nothing for free: the creator buys on the curve like everyone (issue 9).
      assert.equal(await token.read.balanceOf([alice.account.address]), 0n);
      assert.equal(await token.read.decimals(), 18);
    });

    it("mints a custom supply, every base unit of it into the pool", async () => {
      await fresh();
      const supply = 12_345n * ONE_TOKEN + 6_789n;
      const s = await spawn(alice, { totalSupply: supply });
      const token = await tokenAt(s.token!);
      assert.equal(s.totalSupply, supply);
      assert.equal(s.poolSupply, supply);
      assert.equal(await token.read.totalSupply(), supply);
      assert.equal(await token.read.balanceOf([s.pool!]), supply);
      assert.equal(await token.read.balanceOf([alice.account.address]), 0n);
      const pool = await poolAt(s.pool!);
      assert.deepEqual(await pool.read.getReserves(), [supply, 0n, settings.stableVirtualReserve]);
    });

    it("accepts the supply bounds of exactly 1 token and exactly 1e12 tokens", async () => {
      await fresh();
      const low = await spawn(alice, { symbol: "LOW", totalSupply: MIN_SUPPLY });
      const high = await spawn(bob, { symbol: "HIGH", totalSupply: MAX_SUPPLY });
      assert.equal(await (await tokenAt(low.token!)).read.totalSupply(), MIN_SUPPLY);
      assert.equal(await (await tokenAt(high.token!)).read.totalSupply(), MAX_SUPPLY);
    });

    it("pairs STABLE pools with the stable token at the stable virtual reserve", async () => {
      await fresh();
      const s = await spawn(alice, { side: POOL_SIDE.STABLE });
      const pool = await poolAt(s.pool!);
      assert.equal(s.poolSide, POOL_SIDE.STABLE);
      sameAddress(s.pairAsset!, stableToken.address);
      assert.equal(s.virtualPairReserve, settings.stableVirtualReserve);
      sameAddress(await pool.read.pairAsset(), stableToken.address);
      assert.equal(await pool.read.feePips(), settings.poolFeeTier);
      assert.deepEqual(await pool.read.getReserves(), [s.poolSupply, 0n, settings.stableVirtualReserve]);
    });

    it("pairs WRAPPED_NATIVE pools with the wrapped native token at the native virtual reserve", async () => {
      await fresh();
      const s = await spawn(alice, { side: POOL_SIDE.WRAPPED_NATIVE });
      const pool = await poolAt(s.pool!);
      assert.equal(s.poolSide, POOL_SIDE.WRAPPED_NATIVE);
      sameAddress(s.pairAsset!, wrappedNative.address);
      assert.equal(s.virtualPairReserve, settings.nativeVirtualReserve);
      sameAddress(await pool.read.pairAsset(), wrappedNative.address);
      assert.deepEqual(await pool.read.getReserves(), [s.poolSupply, 0n, settings.nativeVirtualReserve]);
    });

    it("burns the whole fee to 0x…dEaD and refunds the overpayment", async () => {
      await fresh();
      const extra = 123_456_789n;
      const hash = await sendSpawn(alice, { value: fee + extra });
      await viem.assertions.balancesHaveChanged(hash, [
        { address: alice.account.address, amount: -fee },
        { address: BURN_ADDRESS, amount: fee },
        { address: spawner.address, amount: 0n },
      ]);
      const s = await settleSpawn(Promise.resolve(hash));
      assert.equal(s.feeBurned, fee);
    });

    it("burns an exact payment without any refund", async () => {
      await fresh();
      const hash = await sendSpawn(alice, { value: fee });
      await viem.assertions.balancesHaveChanged(hash, [
        { address: alice.account.address, amount: -fee },
        { address: BURN_ADDRESS, amount: fee },
      ]);
      await settleSpawn(Promise.resolve(hash));
    });

    it("with a zero fee burns nothing and refunds everything sent", async () => {
      await fresh();
      await spawner.write.setSpawnFee([0n], { account: admin.account });
      const hash = await sendSpawn(alice, { value: 5n });
      await viem.assertions.balancesHaveChanged(hash, [
        { address: alice.account.address, amount: 0n },
        { address: BURN_ADDRESS, amount: 0n },
      ]);
      const s = await settleSpawn(Promise.resolve(hash));
      assert.equal(s.feeBurned, 0n);
    });

    it("stores the metadata in the registry under the new NFT", async () => {
      await fresh();
      const s = await spawn(alice, { metadata: METADATA });
      assert.deepEqual(await registry.read.metadataOf([s.nftId!]), METADATA);
    });

    it("surfaces the registry's metadata check (MetadataTooLong)", async () => {
      await fresh();
      const metadata = { ...METADATA, description: "d".repeat(513) };
      await viem.assertions.revertWithCustomErrorWithArgs(sendSpawn(alice, { metadata }), registry, "MetadataTooLong", [
        513n,
        512n,
      ]);
    });

    it("creates an Active worker with the default config and the configured operator", async () => {
      await fresh();
      const s = await spawn(alice);
      const worker = await registry.read.getWorker([s.workerId!]);
      assert.equal(worker.agentNftId, s.nftId);
      sameAddress(worker.token, s.token!);
      sameAddress(worker.operator, operator.account.address);
      assert.equal(worker.status, WORKER_STATUS.Active);
      assert.equal(worker.deployedAt, s.timestamp);
      assert.equal(worker.lastActiveAt, s.timestamp);
      assert.deepEqual(worker.config, {
        slippageCapBps: 100,
        mevProtection: MEV_PRIVATE_RELAY,
        signalSubscriptions: ["price"],
      });
    });

    it("numbers NFTs and workers sequentially across spawns", async () => {
      await fresh();
      const first = await spawn(alice, { symbol: "ONE" });
      const second = await spawn(bob, { symbol: "TWO" });
      assert.deepEqual([first.nftId, first.workerId, second.nftId, second.workerId], [1n, 1n, 2n, 2n]);
      assert.notEqual(getAddress(first.token!), getAddress(second.token!));
      assert.notEqual(getAddress(first.pool!), getAddress(second.pool!));
    });

    it("applies changed settings to later spawns only", async () => {
      await fresh();
      const before = await spawn(alice, { symbol: "OLD" });
      await spawner.write.setFeeTier([10_000], { account: admin.account });
      await spawner.write.setVirtualReserve([POOL_SIDE.STABLE, 777n], { account: admin.account });
      await spawner.write.setWorkerOperator([dave.account.address], { account: admin.account });
      await spawner.write.setSpawnFee([fee * 2n], { account: admin.account });

      const supply = 1_000n * ONE_TOKEN + 1n;
      const after = await spawn(bob, { symbol: "NEW", totalSupply: supply, value: fee * 2n });
      assert.equal(after.feeTier, 10_000);
      assert.equal(after.poolSupply, supply);
      assert.equal(after.virtualPairReserve, 777n);
      assert.equal(after.feeBurned, fee * 2n);
      assert.equal(await (await poolAt(after.pool!)).read.feePips(), 10_000);
      assert.deepEqual(await (await poolAt(after.pool!)).read.getReserves(), [after.poolSupply, 0n, 777n]);
      sameAddress((await registry.read.getWorker([after.workerId!])).operator, dave.account.address);

      // The earlier spawn keeps what it was created with.
      assert.equal(await (await poolAt(before.pool!)).read.feePips(), settings.poolFeeTier);
      sameAddress((await registry.read.getWorker([before.workerId!])).operator, operator.account.address);
    });
  });

  describe("spawn validation", () => {
    it("rejects an empty name and a 51-byte name, accepts 50 bytes", async () => {
      await fresh();
      await viem.assertions.revertWithCustomErrorWithArgs(sendSpawn(alice, { name: "" }), spawner, "InvalidName", [""]);
      const tooLong = "n".repeat(51);
      await viem.assertions.revertWithCustomErrorWithArgs(sendSpawn(alice, { name: tooLong }), spawner, "InvalidName", [
        tooLong,
      ]);
      const s = await spawn(alice, { name: "n".repeat(50) });
      assert.equal(await (await tokenAt(s.token!)).read.name(), "n".repeat(50));
    });

    it("measures the name in bytes, not characters", async () => {
      await fresh();
      // 26 characters but 51 UTF-8 bytes.
      const multibyte = `${"é".repeat(25)}x`;
      await viem.assertions.revertWithCustomErrorWithArgs(
        sendSpawn(alice, { name: multibyte }),
        spawner,
        "InvalidName",
        [multibyte],
      );
      const s = await spawn(alice, { name: "é".repeat(25) });
      assert.equal(s.name, "é".repeat(25));
    });

    it("rejects symbols outside [A-Z]{3,5}", async () => {
      await fresh();
      for (const symbol of ["abc", "ABc", "AB", "ABCDEF", "AB1", "123", "A B", "@BC", "AB[", ""]) {
        await viem.assertions.revertWithCustomErrorWithArgs(sendSpawn(alice, { symbol }), spawner, "InvalidSymbol", [
          symbol,
        ]);
      }
    });

    it("accepts 3- and 5-letter symbols, including the letters A and Z", async () => {
      await fresh();
      await disableCooldown();
      for (const symbol of ["AZA", "ZAZAZ", "QRST"]) {
        const s = await spawn(alice, { symbol });
        assert.equal(s.symbol, symbol);
        assert.equal(await (await tokenAt(s.token!)).read.symbol(), symbol);
      }
    });

    it("rejects a symbol already taken, by anyone", async () => {
      await fresh();
      assert.equal(await spawner.read.isSymbolTaken(["ALPHA"]), false);
      await spawn(alice, { symbol: "ALPHA" });
      assert.equal(await spawner.read.isSymbolTaken(["ALPHA"]), true);
      assert.equal(await spawner.read.isSymbolTaken(["ALPHB"]), false);
      await viem.assertions.revertWithCustomErrorWithArgs(
        sendSpawn(bob, { symbol: "ALPHA", name: "Another name" }),
        spawner,
        "SymbolTaken",
        ["ALPHA"],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        sendSpawnFor(carol.account.address, { symbol: "ALPHA" }),
        spawner,
        "SymbolTaken",
        ["ALPHA"],
      );
      // Names are not unique, only symbols.
      await spawn(bob, { symbol: "BETA", name: "Alpha Agent" });
    });

    it("enforces the cooldown per owner and lifts it once it has passed", async () => {
      await fresh();
      const first = await spawn(alice, { symbol: "ONE" });
      const readyAt = first.timestamp + settings.spawnCooldownSeconds;
      assert.equal(await spawner.read.nextSpawnAt([alice.account.address]), readyAt);

      await viem.assertions.revertWithCustomErrorWithArgs(
        sendSpawn(alice, { symbol: "TWO" }),
        spawner,
        "CooldownActive",
        [getAddress(alice.account.address), readyAt],
      );
      // Other owners are not affected.
      await spawn(bob, { symbol: "BOB" });

      await networkHelpers.time.increaseTo(readyAt - 2n);
      await viem.assertions.revertWithCustomErrorWithArgs(
        sendSpawn(alice, { symbol: "TWO" }),
        spawner,
        "CooldownActive",
        [getAddress(alice.account.address), readyAt],
      );

      await networkHelpers.time.increase(settings.spawnCooldownSeconds);
      assert.equal(await spawner.read.nextSpawnAt([alice.account.address]), 0n);
      await spawn(alice, { symbol: "TWO" });
    });

    it("lets the owner spawn again in the very block the cooldown ends", async () => {
      await fresh();
      const first = await spawn(alice, { symbol: "ONE" });
      const readyAt = first.timestamp + settings.spawnCooldownSeconds;
      await networkHelpers.time.setNextBlockTimestamp(readyAt);
      const second = await spawn(alice, { symbol: "TWO" });
      assert.equal(second.timestamp, readyAt);
      assert.equal(await spawner.read.nextSpawnAt([alice.account.address]), readyAt + settings.spawnCooldownSeconds);
    });

    it("rejects a payment below the fee with InsufficientFee(sent, required)", async () => {
      await fresh();
      await viem.assertions.revertWithCustomErrorWithArgs(
        sendSpawn(alice, { value: fee - 1n }),
        spawner,
        "InsufficientFee",
        [fee - 1n, fee],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(sendSpawn(alice, { value: 0n }), spawner, "InsufficientFee", [
        0n,
        fee,
      ]);
    });

    it("rejects a supply below 1 token or above 1e12 tokens", async () => {
      await fresh();
      for (const totalSupply of [1n, MIN_SUPPLY - 1n, MAX_SUPPLY + 1n, 2n ** 200n]) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          sendSpawn(alice, { totalSupply }),
          spawner,
          "InvalidSupply",
          [totalSupply],
        );
      }
    });
  });

  describe("spawnFor", () => {
    it("spawns for the owner; the relayer pays the fee and gets the overpayment back", async () => {
      await fresh();
      const expected = await predictClones();
      const extra = 10n ** 15n;
      const hash = await sendSpawnFor(carol.account.address, { value: fee + extra, metadata: METADATA });
      await viem.assertions.balancesHaveChanged(hash, [
        { address: relayer.account.address, amount: -fee },
        { address: carol.account.address, amount: 0n },
        { address: BURN_ADDRESS, amount: fee },
      ]);
      await viem.assertions.emitWithArgs(hash, spawner, "AgentSpawned", [
        expected.token,
        carol.account.address,
        expected.pool,
        1n,
        1n,
        "Alpha Agent",
        "ALPHA",
        DEFAULT_SUPPLY,
        DEFAULT_SUPPLY,
        POOL_SIDE.STABLE,
        stableToken.address,
        settings.poolFeeTier,
        settings.stableVirtualReserve,
        METADATA,
        fee,
      ]);
      const s = await settleSpawn(Promise.resolve(hash));
      const token = await tokenAt(s.token!);
      sameAddress(await registry.read.ownerOf([s.nftId!]), carol.account.address);
      assert.equal(await token.read.balanceOf([carol.account.address]), 0n);
      assert.equal(await token.read.balanceOf([relayer.account.address]), 0n);
    });

    it("applies the cooldown to the owner, not to the relayer", async () => {
      await fresh();
      const s = await spawnFor(carol.account.address, { symbol: "ONE" });
      const readyAt = s.timestamp + settings.spawnCooldownSeconds;
      assert.equal(await spawner.read.nextSpawnAt([carol.account.address]), readyAt);
      assert.equal(await spawner.read.nextSpawnAt([relayer.account.address]), 0n);

      await viem.assertions.revertWithCustomErrorWithArgs(
        sendSpawnFor(carol.account.address, { symbol: "TWO" }),
        spawner,
        "CooldownActive",
        [getAddress(carol.account.address), readyAt],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        sendSpawn(carol, { symbol: "TWO" }),
        spawner,
        "CooldownActive",
        [getAddress(carol.account.address), readyAt],
      );
      // The relayer serves other owners and may spawn for itself right away.
      await spawnFor(dave.account.address, { symbol: "DAVE" });
      await spawn(relayer, { symbol: "RELAY" });
    });

    it("applies the owner's cooldown from a direct spawn to relayed spawns", async () => {
      await fresh();
      const s = await spawn(carol, { symbol: "ONE" });
      await viem.assertions.revertWithCustomErrorWithArgs(
        sendSpawnFor(carol.account.address, { symbol: "TWO" }),
        spawner,
        "CooldownActive",
        [getAddress(carol.account.address), s.timestamp + settings.spawnCooldownSeconds],
      );
    });

    it("takes the fee from the relayer's msg.value", async () => {
      await fresh();
      await viem.assertions.revertWithCustomErrorWithArgs(
        sendSpawnFor(carol.account.address, { value: fee - 1n }),
        spawner,
        "InsufficientFee",
        [fee - 1n, fee],
      );
    });

    it("rejects the zero address as owner", async () => {
      await fresh();
      await viem.assertions.revertWithCustomErrorWithArgs(sendSpawnFor(zeroAddress), spawner, "InvalidAddress", [
        zeroAddress,
      ]);
    });

    it("is relayer-only, even for the admin", async () => {
      await fresh();
      for (const caller of [alice, admin, carol]) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          sendSpawnFor(carol.account.address, {}, caller),
          spawner,
          "AccessControlUnauthorizedAccount",
          [getAddress(caller.account.address), ROLE.RELAYER],
        );
      }
      assert.equal(await spawner.read.hasRole([ROLE.RELAYER, relayer.account.address]), true);
      assert.equal(await spawner.read.RELAYER_ROLE(), ROLE.RELAYER);
    });

    it("stops working for a relayer whose role was revoked", async () => {
      await fresh();
      await spawner.write.revokeRole([ROLE.RELAYER, relayer.account.address], { account: admin.account });
      await viem.assertions.revertWithCustomErrorWithArgs(
        sendSpawnFor(carol.account.address),
        spawner,
        "AccessControlUnauthorizedAccount",
        [getAddress(relayer.account.address), ROLE.RELAYER],
      );
    });
  });

  describe("admin setters", () => {
    const asAdmin = { account: admin.account };

    it("setSpawnFee updates the fee and emits SpawnFeeUpdated(previous, current)", async () => {
      await fresh();
      await viem.assertions.emitWithArgs(spawner.write.setSpawnFee([42n], asAdmin), spawner, "SpawnFeeUpdated", [
        fee,
        42n,
      ]);
      assert.equal(await spawner.read.spawnFee(), 42n);
      assert.equal((await spawner.read.settings()).spawnFee, 42n);
      await viem.assertions.revertWithCustomErrorWithArgs(
        sendSpawn(alice, { value: 41n }),
        spawner,
        "InsufficientFee",
        [41n, 42n],
      );
    });

    it("setCooldown updates the cooldown and emits CooldownUpdated(previous, current)", async () => {
      await fresh();
      await viem.assertions.emitWithArgs(spawner.write.setCooldown([60n], asAdmin), spawner, "CooldownUpdated", [
        settings.spawnCooldownSeconds,
        60n,
      ]);
      assert.equal(await spawner.read.cooldown(), 60n);
      const s = await spawn(alice, { symbol: "ONE" });
      assert.equal(await spawner.read.nextSpawnAt([alice.account.address]), s.timestamp + 60n);
    });

    it("setCooldown(0) allows back-to-back spawns", async () => {
      await fresh();
      await disableCooldown();
      await spawn(alice, { symbol: "ONE" });
      assert.equal(await spawner.read.nextSpawnAt([alice.account.address]), 0n);
      await spawn(alice, { symbol: "TWO" });
    });

    it("setFeeTier accepts 500, 3000 and 10000 and emits FeeTierUpdated(previous, current)", async () => {
      await fresh();
      let previous = settings.poolFeeTier;
      for (const tier of [500, 10_000, 3_000]) {
        await viem.assertions.emitWithArgs(spawner.write.setFeeTier([tier], asAdmin), spawner, "FeeTierUpdated", [
          previous,
          tier,
        ]);
        assert.equal(await spawner.read.feeTier(), tier);
        previous = tier;
      }
    });

    it("setFeeTier rejects any other tier with InvalidFeeTier", async () => {
      await fresh();
      for (const tier of [0, 1, 100, 499, 501, 2_999, 3_001, 9_999, 10_001, 1_000_000]) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          spawner.write.setFeeTier([tier], asAdmin),
          spawner,
          "InvalidFeeTier",
          [tier],
        );
      }
      assert.equal(await spawner.read.feeTier(), settings.poolFeeTier);
    });

    it("rejects every restricted function for an unauthorized account", async () => {
      await fresh();
      const as = { account: alice.account };
      const calls: Record<string, { send: () => Promise<Hash>; role: `0x${string}` }> = {
        spawnFor: { send: () => sendSpawnFor(bob.account.address, {}, alice), role: ROLE.RELAYER },
        setSpawnFee: { send: () => spawner.write.setSpawnFee([0n], as), role: ROLE.DEFAULT_ADMIN },
        setCooldown: { send: () => spawner.write.setCooldown([0n], as), role: ROLE.DEFAULT_ADMIN },
        setFeeTier: { send: () => spawner.write.setFeeTier([500], as), role: ROLE.DEFAULT_ADMIN },
        setVirtualReserve: {
          send: () => spawner.write.setVirtualReserve([POOL_SIDE.STABLE, 1n], as),
          role: ROLE.DEFAULT_ADMIN,
        },
        setWorkerOperator: {
          send: () => spawner.write.setWorkerOperator([alice.account.address], as),
          role: ROLE.DEFAULT_ADMIN,
        },
        grantRole: {
          send: () => spawner.write.grantRole([ROLE.RELAYER, alice.account.address], as),
          role: ROLE.DEFAULT_ADMIN,
        },
        revokeRole: {
          send: () => spawner.write.revokeRole([ROLE.RELAYER, relayer.account.address], as),
          role: ROLE.DEFAULT_ADMIN,
        },
      };

      // Guards against a new state-changing function slipping in without an access test.
      const openByDesign = ["spawn", "renounceRole"];
      const stateChanging = spawner.abi
        .filter((item) => item.type === "function" && item.stateMutability !== "view")
        .map((item) => (item as { name: string }).name)
        .filter((name) => !openByDesign.includes(name))
        .sort();
      assert.deepEqual(stateChanging, Object.keys(calls).sort());

      for (const [name, { send, role }] of Object.entries(calls)) {
        await viem.assertions
          .revertWithCustomErrorWithArgs(send(), spawner, "AccessControlUnauthorizedAccount", [
            getAddress(alice.account.address),
            role,
          ])
          .catch((error: unknown) => {
            throw new Error(`${name}: ${String(error)}`);
          });
      }
      // Nothing changed.
      assert.deepEqual(await spawner.read.settings(), expectedSettings());
      assert.equal(await spawner.read.hasRole([ROLE.RELAYER, alice.account.address]), false);
    });

    it("renounceRole only works for the caller's own account", async () => {
      await fresh();
      await viem.assertions.revertWithCustomError(
        spawner.write.renounceRole([ROLE.RELAYER, relayer.account.address], { account: alice.account }),
        spawner,
        "AccessControlBadConfirmation",
      );
      assert.equal(await spawner.read.hasRole([ROLE.RELAYER, relayer.account.address]), true);
    });
  });

  function expectedSettings() {
    return {
      spawnFee: settings.spawnFee,
      cooldown: settings.spawnCooldownSeconds,
      feeTier: settings.poolFeeTier,
      stableVirtualReserve: settings.stableVirtualReserve,
      nativeVirtualReserve: settings.nativeVirtualReserve,
      workerOperator: getAddress(operator.account.address),
    };
  }

  describe("views", () => {
    it("settings() reflects the deployment settings", async () => {
      await fresh();
      const current = await spawner.read.settings();
      assert.deepEqual({ ...current, workerOperator: getAddress(current.workerOperator) }, expectedSettings());
      assert.equal(await spawner.read.spawnFee(), settings.spawnFee);
      assert.equal(await spawner.read.cooldown(), settings.spawnCooldownSeconds);
      assert.equal(await spawner.read.feeTier(), settings.poolFeeTier);
    });

    it("implementations() and registry() return the deployed wiring", async () => {
      await fresh();
      const [token, pool] = await spawner.read.implementations();
      sameAddress(token, f.tokenImplementation.address);
      sameAddress(pool, f.poolImplementation.address);
      sameAddress(await spawner.read.registry(), registry.address);
    });

    it("pairAssetOf maps each side to its asset", async () => {
      await fresh();
      sameAddress(await spawner.read.pairAssetOf([POOL_SIDE.STABLE]), stableToken.address);
      sameAddress(await spawner.read.pairAssetOf([POOL_SIDE.WRAPPED_NATIVE]), wrappedNative.address);
    });

    it("nextSpawnAt is 0 before any spawn and after the cooldown, readyAt in between", async () => {
      await fresh();
      assert.equal(await spawner.read.nextSpawnAt([alice.account.address]), 0n);
      const s = await spawn(alice);
      const readyAt = s.timestamp + settings.spawnCooldownSeconds;
      assert.equal(await spawner.read.nextSpawnAt([alice.account.address]), readyAt);
      assert.equal(await spawner.read.nextSpawnAt([bob.account.address]), 0n);
      await networkHelpers.time.increaseTo(readyAt - 1n);
      assert.equal(await spawner.read.nextSpawnAt([alice.account.address]), readyAt);
      await networkHelpers.time.increaseTo(readyAt);
      assert.equal(await spawner.read.nextSpawnAt([alice.account.address]), 0n);
    });

    it("nextSpawnAt follows a cooldown change for past spawns", async () => {
      await fresh();
      const s = await spawn(alice);
      await spawner.write.setCooldown([7_200n], { account: admin.account });
      assert.equal(await spawner.read.nextSpawnAt([alice.account.address]), s.timestamp + 7_200n);
    });

    it("isSymbolTaken is exact and case-sensitive", async () => {
      await fresh();
      await spawn(alice, { symbol: "ALPHA" });
      assert.equal(await spawner.read.isSymbolTaken(["ALPHA"]), true);
      assert.equal(await spawner.read.isSymbolTaken(["alpha"]), false);
      assert.equal(await spawner.read.isSymbolTaken(["ALPH"]), false);
    });

    it("exposes its constants", async () => {
      await fresh();
      sameAddress(await spawner.read.BURN_ADDRESS(), BURN_ADDRESS);
      assert.equal(await spawner.read.DEFAULT_SUPPLY(), DEFAULT_SUPPLY);
      assert.equal(await spawner.read.MIN_SUPPLY(), MIN_SUPPLY);
      assert.equal(await spawner.read.MAX_SUPPLY(), MAX_SUPPLY);
      assert.equal(await spawner.read.hasRole([ROLE.DEFAULT_ADMIN, admin.account.address]), true);
    });
  });
});
