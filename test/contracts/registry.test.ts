import { describe, it } from "vitest";
import assert from "node:assert/strict";
import {
  type Address,
  type Hash,
  type Hex,
  getAddress,
  getContractAddress,
  keccak256,
  parseEther,
  parseEventLogs,
  toFunctionSelector,
  toHex,
  zeroAddress,
  zeroHash,
} from "viem";
import {
  deployFixture,
  EMPTY_METADATA,
  POOL_SIDE,
  TIER,
  WORKER_STATUS,
  spawnToken as spawnAgentToken,
} from "../../support/contracts/fixtures.ts";

const SPAWN_FEE = parseEther("0.01");
const ROLE = {
  ADMIN: zeroHash,
  REGISTRAR: keccak256(toHex("REGISTRAR_ROLE")),
  MANAGER: keccak256(toHex("MANAGER_ROLE")),
  CONFIG: keccak256(toHex("CONFIG_ROLE")),
  ACTIVITY: keccak256(toHex("ACTIVITY_ROLE")),
  OVERRIDE: keccak256(toHex("OVERRIDE_ROLE")),
  RELAYER: keccak256(toHex("RELAYER_ROLE")),
} as const;
// Values of the registry's AgentKind and MevProtection enums.
const KIND = { Token: 0, Queen: 1, Scout: 2 } as const;
const MEV = { Off: 0, PrivateRelay: 1, BatchAuction: 2 } as const;

// What the spawner gives every new worker.
const SPAWN_CONFIG = { slippageCapBps: 100, mevProtection: MEV.PrivateRelay, signalSubscriptions: ["price"] };
type Metadata = { description: string; logoUri: string; website: string };
const ALPHA_METADATA: Metadata = {
  description: "Alpha trades momentum",
  logoUri: "ipfs://alpha-logo",
  website: "https://alpha.example",
};
const NEW_CONFIG = {
  slippageCapBps: 250,
  mevProtection: MEV.BatchAuction,
  signalSubscriptions: ["price", "volume", "social_sentiment"],
};

function interfaceId(signatures: string[]): Hex {
  const id = signatures.reduce((acc, signature) => acc ^ BigInt(toFunctionSelector(signature)), 0n);
  return `0x${id.toString(16).padStart(8, "0")}`;
}

describe("AgentRegistry", async () => {
  const f = await deployFixture();
  const { registry, spawner, viem, networkHelpers, publicClient } = f;
  const { admin, alice, bob, carol, dave } = f.wallets;
  const [, , , , , , , , queenOperator, scoutOperator, spareOperator] = await viem.getWalletClients();
  type Wallet = typeof alice;

  async function spawnToken(owner: Wallet, symbol: string, metadata: Metadata = EMPTY_METADATA) {
    return spawnAgentToken(f, owner, symbol, { metadata });
  }

  async function registerAgent(tier: number, operator: Address, owner: Address) {
    const hash = await registry.write.registerAgent([tier, operator, owner], { account: admin.account });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    const [event] = parseEventLogs({ abi: registry.abi, eventName: "AgentRegistered", logs: receipt.logs });
    return event.args.nftId;
  }

  // Two spawned tokens (alice's ALPHA with metadata, bob's BETA), a queen owned by carol and a
  // scout owned by dave; dave also holds the registrar role so the registrar paths can be driven
  // directly rather than only through the spawner.
  async function registryFixture() {
    const alpha = await spawnToken(alice, "ALPHA", ALPHA_METADATA);
    const beta = await spawnToken(bob, "BETA");
    const queenId = await registerAgent(TIER.Queen, queenOperator.account.address, carol.account.address);
    const scoutId = await registerAgent(TIER.Scout, scoutOperator.account.address, dave.account.address);
    await registry.write.grantRole([ROLE.REGISTRAR, dave.account.address], { account: admin.account });
    return { alpha, beta, queenId, scoutId };
  }
  const load = () => networkHelpers.loadFixture(registryFixture);

  describe("roles and wiring", () => {
    it("exposes role ids as keccak256 of their names", async () => {
      assert.equal(await registry.read.REGISTRAR_ROLE(), ROLE.REGISTRAR);
      assert.equal(await registry.read.MANAGER_ROLE(), ROLE.MANAGER);
      assert.equal(await registry.read.CONFIG_ROLE(), ROLE.CONFIG);
      assert.equal(await registry.read.ACTIVITY_ROLE(), ROLE.ACTIVITY);
      assert.equal(await registry.read.OVERRIDE_ROLE(), ROLE.OVERRIDE);
    });

    it("gives the registrar role to the spawner and activity to the action log only", async () => {
      assert.equal(await registry.read.hasRole([ROLE.REGISTRAR, spawner.address]), true);
      assert.equal(await registry.read.hasRole([ROLE.REGISTRAR, admin.account.address]), false);
      assert.equal(await registry.read.hasRole([ROLE.ACTIVITY, f.actionLog.address]), true);
      assert.equal(await registry.read.hasRole([ROLE.ACTIVITY, admin.account.address]), false);
      assert.equal(await registry.read.hasRole([ROLE.OVERRIDE, f.actionLog.address]), true);
      assert.equal(await registry.read.hasRole([ROLE.OVERRIDE, admin.account.address]), false);
      assert.equal(await registry.read.hasRole([ROLE.CONFIG, f.voting.address]), true);
      assert.equal(await registry.read.hasRole([ROLE.MANAGER, f.voting.address]), false);
    });

    it("supports ERC-165, ERC-721, ERC-721 metadata and AccessControl interfaces", async () => {
      const erc721 = interfaceId([
        "function balanceOf(address)",
        "function ownerOf(uint256)",
        "function safeTransferFrom(address,address,uint256,bytes)",
        "function safeTransferFrom(address,address,uint256)",
        "function transferFrom(address,address,uint256)",
        "function approve(address,uint256)",
        "function setApprovalForAll(address,bool)",
        "function getApproved(uint256)",
        "function isApprovedForAll(address,address)",
      ]);
      const erc721Metadata = interfaceId(["function name()", "function symbol()", "function tokenURI(uint256)"]);
      const accessControl = interfaceId([
        "function hasRole(bytes32,address)",
        "function getRoleAdmin(bytes32)",
        "function grantRole(bytes32,address)",
        "function revokeRole(bytes32,address)",
        "function renounceRole(bytes32,address)",
      ]);
      const erc165 = interfaceId(["function supportsInterface(bytes4)"]);
      for (const id of [erc721, erc721Metadata, accessControl, erc165]) {
        assert.equal(await registry.read.supportsInterface([id]), true, id);
      }
      // Cross-check the XOR computation against the well-known ERC-721 id.
      assert.equal(erc721, "0x80ac58cd");
      assert.equal(await registry.read.supportsInterface(["0xffffffff"]), false);
      assert.equal(await registry.read.supportsInterface(["0x12345678"]), false);
    });

    it("names its NFTs Agent / AGENT", async () => {
      assert.equal(await registry.read.name(), "Agent");
      assert.equal(await registry.read.symbol(), "AGENT");
    });
  });

  describe("registerAgentToken and createWorker (through the spawner)", () => {
    it("mints sequential NFT ids and worker ids, owner and token links and metadata", async () => {
      const { alpha, beta } = await load();
      assert.equal(alpha.nftId, 1n);
      assert.equal(alpha.workerId, 1n);
      assert.equal(beta.nftId, 2n);
      assert.equal(beta.workerId, 2n);
      assert.equal(getAddress(await registry.read.ownerOf([1n])), getAddress(alice.account.address));
      assert.equal(getAddress(await registry.read.ownerOf([2n])), getAddress(bob.account.address));
      assert.equal(await registry.read.balanceOf([alice.account.address]), 1n);
      assert.equal(await registry.read.agentOfToken([alpha.token]), 1n);
      assert.equal(await registry.read.agentOfToken([beta.token]), 2n);
      assert.equal(getAddress(await registry.read.tokenOfAgent([1n])), getAddress(alpha.token));
      assert.equal(await registry.read.agentKind([1n]), KIND.Token);
      assert.deepEqual(await registry.read.metadataOf([1n]), ALPHA_METADATA);
      assert.deepEqual(await registry.read.metadataOf([2n]), EMPTY_METADATA);
      assert.equal(await registry.read.workerOfAgent([1n]), 1n);
      assert.equal(await registry.read.workerOfAgent([2n]), 2n);
      assert.equal(await registry.read.workerCount(), 2n);
    });

    it("emits AgentTokenRegistered and WorkerCreated with the spawned token's values", async () => {
      await load();
      // Clones are created with CREATE, so the next token address follows from the spawner's nonce.
      const nonce = await publicClient.getTransactionCount({ address: spawner.address });
      const token = getContractAddress({ from: spawner.address, nonce: BigInt(nonce) });
      const metadata = { description: "Gamma", logoUri: "", website: "https://gamma.example" };
      const hash = await spawner.write.spawn(["Gamma Agent", "GAMMA", 0n, POOL_SIDE.STABLE, metadata], {
        account: carol.account,
        value: SPAWN_FEE,
      });
      await viem.assertions.emitWithArgs(Promise.resolve(hash), registry, "AgentTokenRegistered", [
        5n,
        token,
        carol.account.address,
        metadata,
      ]);
      await viem.assertions.emitWithArgs(Promise.resolve(hash), registry, "WorkerCreated", [
        3n,
        5n,
        token,
        f.wallets.operator.account.address,
        SPAWN_CONFIG,
      ]);
      assert.equal(await registry.read.agentOfToken([token]), 5n);
    });

    it("stores the spawned worker as Active with deployedAt = lastActiveAt = spawn time", async () => {
      await load();
      const next = (await networkHelpers.time.latest()) + 100;
      await networkHelpers.time.setNextBlockTimestamp(next);
      const gamma = await spawnToken(carol, "GAMMA");
      const worker = await registry.read.getWorker([gamma.workerId]);
      assert.equal(worker.agentNftId, gamma.nftId);
      assert.equal(getAddress(worker.token), getAddress(gamma.token));
      assert.equal(getAddress(worker.operator), getAddress(f.wallets.operator.account.address));
      assert.equal(worker.status, WORKER_STATUS.Active);
      assert.equal(worker.deployedAt, BigInt(next));
      assert.equal(worker.lastActiveAt, BigInt(next));
      assert.deepEqual(worker.config, SPAWN_CONFIG);
      const [operator, status] = await registry.read.workerAuth([gamma.workerId]);
      assert.equal(getAddress(operator), getAddress(f.wallets.operator.account.address));
      assert.equal(status, WORKER_STATUS.Active);
    });
  });

  describe("registerAgentToken (direct registrar)", () => {
    const someToken = getAddress("0x00000000000000000000000000000000000a11ce");

    it("registers a new token for an owner, next NFT id after queens and scouts", async () => {
      await load();
      await viem.assertions.emitWithArgs(
        registry.write.registerAgentToken([bob.account.address, someToken, ALPHA_METADATA], { account: dave.account }),
        registry,
        "AgentTokenRegistered",
        [5n, someToken, bob.account.address, ALPHA_METADATA],
      );
      assert.equal(await registry.read.agentOfToken([someToken]), 5n);
      assert.equal(getAddress(await registry.read.ownerOf([5n])), getAddress(bob.account.address));
      // A token NFT starts without a worker; the worker is a separate step.
      assert.equal(await registry.read.workerOfAgent([5n]), 0n);
    });

    it("rejects a token that is already registered", async () => {
      const { alpha } = await load();
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.registerAgentToken([bob.account.address, alpha.token, EMPTY_METADATA], {
          account: dave.account,
        }),
        registry,
        "AlreadyRegistered",
        [alpha.token],
      );
    });

    it("rejects the zero token address", async () => {
      await load();
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.registerAgentToken([bob.account.address, zeroAddress, EMPTY_METADATA], {
          account: dave.account,
        }),
        registry,
        "InvalidAddress",
        [zeroAddress],
      );
    });

    it("rejects metadata above the length limits", async () => {
      await load();
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.registerAgentToken(
          [bob.account.address, someToken, { ...EMPTY_METADATA, description: "d".repeat(513) }],
          { account: dave.account },
        ),
        registry,
        "MetadataTooLong",
        [513n, 512n],
      );
    });

    it("rejects callers without the registrar role, the admin included", async () => {
      await load();
      for (const caller of [admin, alice]) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          registry.write.registerAgentToken([caller.account.address, someToken, EMPTY_METADATA], {
            account: caller.account,
          }),
          registry,
          "AccessControlUnauthorizedAccount",
          [caller.account.address, ROLE.REGISTRAR],
        );
      }
    });
  });

  describe("createWorker (direct registrar)", () => {
    const someToken = getAddress("0x00000000000000000000000000000000000b0b00");

    async function registerBareToken() {
      await registry.write.registerAgentToken([alice.account.address, someToken, EMPTY_METADATA], {
        account: dave.account,
      });
      return 5n;
    }

    it("creates the next worker id for a token NFT without a worker", async () => {
      await load();
      const nftId = await registerBareToken();
      const next = (await networkHelpers.time.latest()) + 50;
      await networkHelpers.time.setNextBlockTimestamp(next);
      await viem.assertions.emitWithArgs(
        registry.write.createWorker([nftId, spareOperator.account.address, NEW_CONFIG], { account: dave.account }),
        registry,
        "WorkerCreated",
        [3n, nftId, someToken, spareOperator.account.address, NEW_CONFIG],
      );
      assert.equal(await registry.read.workerOfAgent([nftId]), 3n);
      assert.equal(await registry.read.workerCount(), 3n);
      const worker = await registry.read.getWorker([3n]);
      assert.equal(worker.agentNftId, nftId);
      assert.equal(getAddress(worker.token), someToken);
      assert.equal(getAddress(worker.operator), getAddress(spareOperator.account.address));
      assert.equal(worker.status, WORKER_STATUS.Active);
      assert.equal(worker.deployedAt, BigInt(next));
      assert.equal(worker.lastActiveAt, BigInt(next));
      assert.deepEqual(worker.config, NEW_CONFIG);
    });

    it("rejects a second worker for the same token NFT", async () => {
      const { alpha } = await load();
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.createWorker([alpha.nftId, spareOperator.account.address, NEW_CONFIG], {
          account: dave.account,
        }),
        registry,
        "AlreadyRegistered",
        [alpha.token],
      );
    });

    it("rejects unknown NFT ids and queen or scout NFTs", async () => {
      const { queenId, scoutId } = await load();
      for (const id of [0n, 99n]) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          registry.write.createWorker([id, spareOperator.account.address, NEW_CONFIG], { account: dave.account }),
          registry,
          "UnknownAgent",
          [id],
        );
      }
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.createWorker([queenId, spareOperator.account.address, NEW_CONFIG], { account: dave.account }),
        registry,
        "WrongAgentKind",
        [queenId, KIND.Queen],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.createWorker([scoutId, spareOperator.account.address, NEW_CONFIG], { account: dave.account }),
        registry,
        "WrongAgentKind",
        [scoutId, KIND.Scout],
      );
    });

    it("rejects the zero operator and an invalid config", async () => {
      await load();
      const nftId = await registerBareToken();
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.createWorker([nftId, zeroAddress, NEW_CONFIG], { account: dave.account }),
        registry,
        "InvalidAddress",
        [zeroAddress],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.createWorker([nftId, spareOperator.account.address, { ...NEW_CONFIG, slippageCapBps: 10_001 }], {
          account: dave.account,
        }),
        registry,
        "InvalidSlippageCap",
        [10_001n],
      );
      assert.equal(await registry.read.workerOfAgent([nftId]), 0n);
    });

    it("rejects callers without the registrar role", async () => {
      const { alpha } = await load();
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.createWorker([alpha.nftId, alice.account.address, NEW_CONFIG], { account: admin.account }),
        registry,
        "AccessControlUnauthorizedAccount",
        [admin.account.address, ROLE.REGISTRAR],
      );
    });
  });

  describe("registerAgent (queens and scouts)", () => {
    it("registers queens and scouts with their own NFT, kind and operator lookup", async () => {
      const { queenId, scoutId } = await load();
      // Token NFTs took ids 1 and 2; queens and scouts share the same id sequence.
      assert.equal(queenId, 3n);
      assert.equal(scoutId, 4n);
      assert.equal(await registry.read.agentKind([queenId]), KIND.Queen);
      assert.equal(await registry.read.agentKind([scoutId]), KIND.Scout);
      assert.equal(getAddress(await registry.read.ownerOf([queenId])), getAddress(carol.account.address));
      assert.deepEqual(await registry.read.agentOfOperator([queenOperator.account.address]), [TIER.Queen, queenId]);
      assert.deepEqual(await registry.read.agentOfOperator([scoutOperator.account.address]), [TIER.Scout, scoutId]);
      assert.deepEqual(await registry.read.agentOfOperator([alice.account.address]), [TIER.None, 0n]);
      // Queens and scouts are not tokens: no worker, no token link, no metadata.
      assert.equal(await registry.read.workerOfAgent([queenId]), 0n);
      assert.equal(await registry.read.workerCount(), 2n);
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.read.tokenOfAgent([queenId]),
        registry,
        "WrongAgentKind",
        [queenId, KIND.Queen],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.read.metadataOf([scoutId]),
        registry,
        "WrongAgentKind",
        [scoutId, KIND.Scout],
      );
    });

    it("emits AgentRegistered with tier, operator and owner", async () => {
      await load();
      await viem.assertions.emitWithArgs(
        registry.write.registerAgent([TIER.Scout, spareOperator.account.address, alice.account.address], {
          account: admin.account,
        }),
        registry,
        "AgentRegistered",
        [5n, TIER.Scout, spareOperator.account.address, alice.account.address],
      );
    });

    it("rejects tiers None and Worker", async () => {
      await load();
      for (const tier of [TIER.None, TIER.Worker]) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          registry.write.registerAgent([tier, spareOperator.account.address, alice.account.address], {
            account: admin.account,
          }),
          registry,
          "InvalidTier",
          [tier],
        );
      }
    });

    it("rejects an operator already acting for another queen or scout", async () => {
      const { queenId } = await load();
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.registerAgent([TIER.Scout, queenOperator.account.address, alice.account.address], {
          account: admin.account,
        }),
        registry,
        "OperatorInUse",
        [queenOperator.account.address, queenId],
      );
    });

    it("rejects the zero operator", async () => {
      await load();
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.registerAgent([TIER.Queen, zeroAddress, alice.account.address], { account: admin.account }),
        registry,
        "InvalidAddress",
        [zeroAddress],
      );
    });

    it("rejects callers without the manager role", async () => {
      await load();
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.registerAgent([TIER.Queen, spareOperator.account.address, alice.account.address], {
          account: alice.account,
        }),
        registry,
        "AccessControlUnauthorizedAccount",
        [alice.account.address, ROLE.MANAGER],
      );
    });
  });

  describe("setAgentOperator", () => {
    it("moves a queen to a new operator and frees the old one", async () => {
      const { queenId } = await load();
      await viem.assertions.emitWithArgs(
        registry.write.setAgentOperator([queenId, spareOperator.account.address], { account: admin.account }),
        registry,
        "AgentOperatorChanged",
        [queenId, queenOperator.account.address, spareOperator.account.address],
      );
      assert.deepEqual(await registry.read.agentOfOperator([spareOperator.account.address]), [TIER.Queen, queenId]);
      assert.deepEqual(await registry.read.agentOfOperator([queenOperator.account.address]), [TIER.None, 0n]);
      // The freed address may now act for another agent.
      await registry.write.registerAgent([TIER.Scout, queenOperator.account.address, alice.account.address], {
        account: admin.account,
      });
      assert.deepEqual(await registry.read.agentOfOperator([queenOperator.account.address]), [TIER.Scout, 5n]);
    });

    it("disables a scout with the zero address", async () => {
      const { scoutId } = await load();
      await viem.assertions.emitWithArgs(
        registry.write.setAgentOperator([scoutId, zeroAddress], { account: admin.account }),
        registry,
        "AgentOperatorChanged",
        [scoutId, scoutOperator.account.address, zeroAddress],
      );
      assert.deepEqual(await registry.read.agentOfOperator([scoutOperator.account.address]), [TIER.None, 0n]);
      assert.deepEqual(await registry.read.agentOfOperator([zeroAddress]), [TIER.None, 0n]);
      // The NFT itself survives; re-enabling gives it an operator again.
      assert.equal(await registry.read.agentKind([scoutId]), KIND.Scout);
      await registry.write.setAgentOperator([scoutId, spareOperator.account.address], { account: admin.account });
      assert.deepEqual(await registry.read.agentOfOperator([spareOperator.account.address]), [TIER.Scout, scoutId]);
    });

    it("rejects an operator in use by another agent; re-setting its own is a no-op", async () => {
      const { queenId, scoutId } = await load();
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.setAgentOperator([scoutId, queenOperator.account.address], { account: admin.account }),
        registry,
        "OperatorInUse",
        [queenOperator.account.address, queenId],
      );
      await viem.assertions.emitWithArgs(
        registry.write.setAgentOperator([queenId, queenOperator.account.address], { account: admin.account }),
        registry,
        "AgentOperatorChanged",
        [queenId, getAddress(queenOperator.account.address), getAddress(queenOperator.account.address)],
      );
      assert.deepEqual(await registry.read.agentOfOperator([queenOperator.account.address]), [TIER.Queen, queenId]);
      assert.deepEqual(await registry.read.agentOfOperator([scoutOperator.account.address]), [TIER.Scout, scoutId]);
    });

    it("keeps worker operators and queen or scout operators apart", async () => {
      const { queenId, scoutId, alpha } = await load();
      const { operator } = f.wallets;
      // The default worker operator runs every spawned worker: it cannot become a queen or scout.
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.setAgentOperator([scoutId, operator.account.address], { account: admin.account }),
        registry,
        "OperatorRunsWorkers",
        [getAddress(operator.account.address)],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.registerAgent([TIER.Queen, operator.account.address, admin.account.address], {
          account: admin.account,
        }),
        registry,
        "OperatorRunsWorkers",
        [getAddress(operator.account.address)],
      );
      // And a queen's operator cannot be handed a worker.
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.setWorkerOperator([alpha.workerId, queenOperator.account.address], { account: admin.account }),
        registry,
        "OperatorInUse",
        [getAddress(queenOperator.account.address), queenId],
      );
    });

    it("rejects token NFTs and unknown ids", async () => {
      const { alpha } = await load();
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.setAgentOperator([alpha.nftId, spareOperator.account.address], { account: admin.account }),
        registry,
        "WrongAgentKind",
        [alpha.nftId, KIND.Token],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.setAgentOperator([42n, spareOperator.account.address], { account: admin.account }),
        registry,
        "UnknownAgent",
        [42n],
      );
    });

    it("rejects callers without the manager role, the queen's NFT owner included", async () => {
      const { queenId } = await load();
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.setAgentOperator([queenId, spareOperator.account.address], { account: carol.account }),
        registry,
        "AccessControlUnauthorizedAccount",
        [carol.account.address, ROLE.MANAGER],
      );
    });
  });

  describe("setMetadata", () => {
    const updated = { description: "New direction", logoUri: "ipfs://new", website: "" };

    it("lets the NFT owner replace the metadata", async () => {
      const { alpha } = await load();
      await viem.assertions.emitWithArgs(
        registry.write.setMetadata([alpha.nftId, updated], { account: alice.account }),
        registry,
        "MetadataUpdated",
        [alpha.nftId, updated],
      );
      assert.deepEqual(await registry.read.metadataOf([alpha.nftId]), updated);
    });

    it("rejects anyone but the NFT owner, admin included", async () => {
      const { alpha } = await load();
      for (const caller of [bob, admin]) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          registry.write.setMetadata([alpha.nftId, updated], { account: caller.account }),
          registry,
          "NotAgentOwner",
          [alpha.nftId, caller.account.address],
        );
      }
      assert.deepEqual(await registry.read.metadataOf([alpha.nftId]), ALPHA_METADATA);
    });

    it("follows the NFT when it is transferred", async () => {
      const { alpha } = await load();
      await viem.assertions.emitWithArgs(
        registry.write.transferFrom([alice.account.address, carol.account.address, alpha.nftId], {
          account: alice.account,
        }),
        registry,
        "Transfer",
        [alice.account.address, carol.account.address, alpha.nftId],
      );
      assert.equal(getAddress(await registry.read.ownerOf([alpha.nftId])), getAddress(carol.account.address));
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.setMetadata([alpha.nftId, updated], { account: alice.account }),
        registry,
        "NotAgentOwner",
        [alpha.nftId, alice.account.address],
      );
      await registry.write.setMetadata([alpha.nftId, updated], { account: carol.account });
      assert.deepEqual(await registry.read.metadataOf([alpha.nftId]), updated);
      // The token link and worker stay with the NFT id, not with the previous owner.
      assert.equal(getAddress(await registry.read.tokenOfAgent([alpha.nftId])), getAddress(alpha.token));
      assert.equal(await registry.read.workerOfAgent([alpha.nftId]), alpha.workerId);
    });

    it("accepts fields exactly at the limits (512 / 256 / 256 bytes)", async () => {
      const { alpha } = await load();
      const atLimit = { description: "d".repeat(512), logoUri: "l".repeat(256), website: "w".repeat(256) };
      await registry.write.setMetadata([alpha.nftId, atLimit], { account: alice.account });
      assert.deepEqual(await registry.read.metadataOf([alpha.nftId]), atLimit);
    });

    it("rejects each field one byte over its limit, counting UTF-8 bytes", async () => {
      const { alpha } = await load();
      const cases = [
        { metadata: { ...EMPTY_METADATA, description: "d".repeat(513) }, length: 513n, max: 512n },
        { metadata: { ...EMPTY_METADATA, logoUri: "l".repeat(257) }, length: 257n, max: 256n },
        { metadata: { ...EMPTY_METADATA, website: "w".repeat(257) }, length: 257n, max: 256n },
        // 257 two-byte characters: under the limit in characters, over it in bytes.
        { metadata: { ...EMPTY_METADATA, description: "é".repeat(257) }, length: 514n, max: 512n },
      ];
      for (const { metadata, length, max } of cases) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          registry.write.setMetadata([alpha.nftId, metadata], { account: alice.account }),
          registry,
          "MetadataTooLong",
          [length, max],
        );
      }
    });

    it("rejects queen NFTs (even for their owner) and unknown ids", async () => {
      const { queenId } = await load();
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.setMetadata([queenId, updated], { account: carol.account }),
        registry,
        "WrongAgentKind",
        [queenId, KIND.Queen],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.setMetadata([77n, updated], { account: alice.account }),
        registry,
        "UnknownAgent",
        [77n],
      );
    });
  });

  describe("ERC-721 transfers", () => {
    it("moves a queen NFT without changing who operates it", async () => {
      const { queenId } = await load();
      await registry.write.safeTransferFrom([carol.account.address, bob.account.address, queenId], {
        account: carol.account,
      });
      assert.equal(getAddress(await registry.read.ownerOf([queenId])), getAddress(bob.account.address));
      assert.equal(await registry.read.balanceOf([carol.account.address]), 0n);
      assert.deepEqual(await registry.read.agentOfOperator([queenOperator.account.address]), [TIER.Queen, queenId]);
    });

    it("rejects transfers by someone neither owner nor approved", async () => {
      const { alpha } = await load();
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.transferFrom([alice.account.address, bob.account.address, alpha.nftId], {
          account: bob.account,
        }),
        registry,
        "ERC721InsufficientApproval",
        [bob.account.address, alpha.nftId],
      );
    });
  });

  describe("worker management", () => {
    it("setWorkerStatus changes the status and emits the transition", async () => {
      const { alpha } = await load();
      await viem.assertions.emitWithArgs(
        registry.write.setWorkerStatus([alpha.workerId, WORKER_STATUS.Suspended], { account: admin.account }),
        registry,
        "WorkerStatusChanged",
        [alpha.workerId, WORKER_STATUS.Active, WORKER_STATUS.Suspended],
      );
      await viem.assertions.emitWithArgs(
        registry.write.setWorkerStatus([alpha.workerId, WORKER_STATUS.Idle], { account: admin.account }),
        registry,
        "WorkerStatusChanged",
        [alpha.workerId, WORKER_STATUS.Suspended, WORKER_STATUS.Idle],
      );
      assert.equal((await registry.read.getWorker([alpha.workerId])).status, WORKER_STATUS.Idle);
      assert.equal((await registry.read.workerAuth([alpha.workerId]))[1], WORKER_STATUS.Idle);
      // The other worker is untouched.
      assert.equal((await registry.read.getWorker([2n])).status, WORKER_STATUS.Active);
    });

    it("an override's suspension (override role) is read as over once its cool-off ends", async () => {
      const { alpha, queenId, scoutId } = await load();
      await registry.write.grantRole([ROLE.OVERRIDE, dave.account.address], { account: admin.account });
      const until = BigInt(await networkHelpers.time.latest()) + 600n;
      await viem.assertions.emitWithArgs(
        registry.write.suspendWorker([alpha.workerId, TIER.Scout, scoutId, until], { account: dave.account }),
        registry,
        "WorkerSuspended",
        [alpha.workerId, TIER.Scout, scoutId, until, WORKER_STATUS.Active],
      );
      assert.equal((await registry.read.getWorker([alpha.workerId])).status, WORKER_STATUS.Suspended);
      // A lower tier never weakens a higher one's suspension; a higher one takes it over.
      await registry.write.suspendWorker([alpha.workerId, TIER.Queen, queenId, until + 60n], { account: dave.account });
      await registry.write.suspendWorker([alpha.workerId, TIER.Scout, scoutId, until - 300n], {
        account: dave.account,
      });
      const held = await registry.read.workerSuspension([alpha.workerId]);
      assert.deepEqual([held.byTier, held.byAgentId, held.until], [TIER.Queen, queenId, until + 60n]);
      await networkHelpers.time.increaseTo(until + 60n);
      assert.equal((await registry.read.getWorker([alpha.workerId])).status, WORKER_STATUS.Active);
      assert.equal((await registry.read.workerAuth([alpha.workerId]))[1], WORKER_STATUS.Active);
      // Without an override's suspension there is nothing to resume.
      await registry.write.resumeWorker([alpha.workerId, TIER.Queen, queenId], { account: dave.account });
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.resumeWorker([alpha.workerId, TIER.Queen, queenId], { account: dave.account }),
        registry,
        "NotSuspendedByOverride",
        [alpha.workerId],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.suspendAgent([alpha.nftId, TIER.Queen, queenId, until], { account: dave.account }),
        registry,
        "WrongAgentKind",
        [alpha.nftId, KIND.Token],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.read.workerSuspension([99n]),
        registry,
        "UnknownWorker",
        [99n],
      );
    });

    it("setWorkerOperator replaces the operator and rejects the zero address", async () => {
      const { beta } = await load();
      await viem.assertions.emitWithArgs(
        registry.write.setWorkerOperator([beta.workerId, spareOperator.account.address], { account: admin.account }),
        registry,
        "WorkerOperatorChanged",
        [beta.workerId, f.wallets.operator.account.address, spareOperator.account.address],
      );
      const [operator, status] = await registry.read.workerAuth([beta.workerId]);
      assert.equal(getAddress(operator), getAddress(spareOperator.account.address));
      assert.equal(status, WORKER_STATUS.Active);
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.setWorkerOperator([beta.workerId, zeroAddress], { account: admin.account }),
        registry,
        "InvalidAddress",
        [zeroAddress],
      );
    });

    it("setWorkerOperator is the NFT owner's or a manager's, nobody else's", async () => {
      const { alpha } = await load();
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.setWorkerOperator([alpha.workerId, carol.account.address], { account: carol.account }),
        registry,
        "NotAgentOwner",
        [alpha.nftId, getAddress(carol.account.address)],
      );
      await viem.assertions.emitWithArgs(
        registry.write.setWorkerOperator([alpha.workerId, spareOperator.account.address], { account: alice.account }),
        registry,
        "WorkerOperatorChanged",
        [alpha.workerId, f.wallets.operator.account.address, spareOperator.account.address],
      );
    });

    it("setWorkerConfig replaces the config", async () => {
      const { alpha } = await load();
      await viem.assertions.emitWithArgs(
        registry.write.setWorkerConfig([alpha.workerId, NEW_CONFIG], { account: admin.account }),
        registry,
        "WorkerConfigUpdated",
        [alpha.workerId, NEW_CONFIG],
      );
      assert.deepEqual((await registry.read.getWorker([alpha.workerId])).config, NEW_CONFIG);
      const emptied = { slippageCapBps: 0, mevProtection: MEV.Off, signalSubscriptions: [] };
      await registry.write.setWorkerConfig([alpha.workerId, emptied], { account: admin.account });
      assert.deepEqual((await registry.read.getWorker([alpha.workerId])).config, emptied);
    });

    it("setWorkerConfig accepts the limits: 10000 bps, 16 subscriptions of 32 bytes", async () => {
      const { alpha } = await load();
      const atLimit = {
        slippageCapBps: 10_000,
        mevProtection: MEV.PrivateRelay,
        signalSubscriptions: Array.from({ length: 16 }, (_, i) => `${i}`.padStart(32, "s")),
      };
      await registry.write.setWorkerConfig([alpha.workerId, atLimit], { account: admin.account });
      assert.deepEqual((await registry.read.getWorker([alpha.workerId])).config, atLimit);
    });

    it("setWorkerConfig rejects a slippage cap above 100%", async () => {
      const { alpha } = await load();
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.setWorkerConfig([alpha.workerId, { ...NEW_CONFIG, slippageCapBps: 10_001 }], {
          account: admin.account,
        }),
        registry,
        "InvalidSlippageCap",
        [10_001n],
      );
    });

    it("setWorkerConfig rejects too many, empty or oversized subscriptions", async () => {
      const { alpha } = await load();
      const cases = [
        { signalSubscriptions: Array.from({ length: 17 }, (_, i) => `signal_${i}`), count: 17n },
        { signalSubscriptions: ["price", ""], count: 2n },
        { signalSubscriptions: ["x".repeat(33)], count: 1n },
        { signalSubscriptions: ["price", "volume", "é".repeat(17)], count: 3n },
      ];
      for (const { signalSubscriptions, count } of cases) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          registry.write.setWorkerConfig([alpha.workerId, { ...NEW_CONFIG, signalSubscriptions }], {
            account: admin.account,
          }),
          registry,
          "InvalidSignalSubscriptions",
          [count],
        );
      }
      assert.deepEqual((await registry.read.getWorker([alpha.workerId])).config, SPAWN_CONFIG);
    });

    it("worker setters reject unknown worker ids", async () => {
      await load();
      for (const id of [0n, 3n]) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          registry.write.setWorkerStatus([id, WORKER_STATUS.Idle], { account: admin.account }),
          registry,
          "UnknownWorker",
          [id],
        );
        await viem.assertions.revertWithCustomErrorWithArgs(
          registry.write.setWorkerOperator([id, spareOperator.account.address], { account: admin.account }),
          registry,
          "UnknownWorker",
          [id],
        );
        await viem.assertions.revertWithCustomErrorWithArgs(
          registry.write.setWorkerConfig([id, NEW_CONFIG], { account: admin.account }),
          registry,
          "UnknownWorker",
          [id],
        );
      }
    });

    it("keeps the manager and config roles apart", async () => {
      const { alpha } = await load();
      await registry.write.grantRole([ROLE.MANAGER, carol.account.address], { account: admin.account });
      await registry.write.grantRole([ROLE.CONFIG, dave.account.address], { account: admin.account });
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.setWorkerConfig([alpha.workerId, NEW_CONFIG], { account: carol.account }),
        registry,
        "AccessControlUnauthorizedAccount",
        [carol.account.address, ROLE.CONFIG],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.setWorkerStatus([alpha.workerId, WORKER_STATUS.Idle], { account: dave.account }),
        registry,
        "AccessControlUnauthorizedAccount",
        [dave.account.address, ROLE.MANAGER],
      );
      await registry.write.setWorkerStatus([alpha.workerId, WORKER_STATUS.Idle], { account: carol.account });
      await registry.write.setWorkerConfig([alpha.workerId, NEW_CONFIG], { account: dave.account });
      const worker = await registry.read.getWorker([alpha.workerId]);
      assert.equal(worker.status, WORKER_STATUS.Idle);
      assert.deepEqual(worker.config, NEW_CONFIG);
    });
  });

  describe("markWorkerActive", () => {
    it("is restricted to the activity role, which the admin does not hold", async () => {
      const { alpha } = await load();
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.markWorkerActive([alpha.workerId], { account: admin.account }),
        registry,
        "AccessControlUnauthorizedAccount",
        [admin.account.address, ROLE.ACTIVITY],
      );
    });

    it("stamps lastActiveAt with the block time and keeps deployedAt", async () => {
      const { alpha } = await load();
      await registry.write.grantRole([ROLE.ACTIVITY, carol.account.address], { account: admin.account });
      const before = await registry.read.getWorker([alpha.workerId]);
      const at = BigInt(await networkHelpers.time.latest()) + 3600n;
      await networkHelpers.time.setNextBlockTimestamp(at);
      await viem.assertions.emitWithArgs(
        registry.write.markWorkerActive([alpha.workerId], { account: carol.account }),
        registry,
        "WorkerActive",
        [alpha.workerId, at],
      );
      const after = await registry.read.getWorker([alpha.workerId]);
      assert.equal(after.lastActiveAt, at);
      assert.equal(after.deployedAt, before.deployedAt);
      assert.ok(after.lastActiveAt > before.lastActiveAt);
      await viem.assertions.revertWithCustomErrorWithArgs(
        registry.write.markWorkerActive([9n], { account: carol.account }),
        registry,
        "UnknownWorker",
        [9n],
      );
    });
  });

  describe("views", () => {
    it("revert or return zero for unknown ids as documented", async () => {
      await load();
      await viem.assertions.revertWithCustomErrorWithArgs(registry.read.getWorker([5n]), registry, "UnknownWorker", [
        5n,
      ]);
      await viem.assertions.revertWithCustomErrorWithArgs(registry.read.workerAuth([0n]), registry, "UnknownWorker", [
        0n,
      ]);
      await viem.assertions.revertWithCustomErrorWithArgs(registry.read.agentKind([0n]), registry, "UnknownAgent", [
        0n,
      ]);
      await viem.assertions.revertWithCustomErrorWithArgs(registry.read.tokenOfAgent([5n]), registry, "UnknownAgent", [
        5n,
      ]);
      await viem.assertions.revertWithCustomErrorWithArgs(registry.read.metadataOf([5n]), registry, "UnknownAgent", [
        5n,
      ]);
      assert.equal(await registry.read.workerOfAgent([5n]), 0n);
      assert.equal(await registry.read.agentOfToken([alice.account.address]), 0n);
      assert.equal(await registry.read.agentOfToken([zeroAddress]), 0n);
    });

    it("counts workers only, not queen or scout NFTs", async () => {
      await load();
      assert.equal(await registry.read.workerCount(), 2n);
      await registry.write.registerAgent([TIER.Queen, spareOperator.account.address, alice.account.address], {
        account: admin.account,
      });
      assert.equal(await registry.read.workerCount(), 2n);
      await spawnToken(carol, "GAMMA");
      assert.equal(await registry.read.workerCount(), 3n);
    });
  });

  describe("access control on every state-changing function", () => {
    type Ctx = Awaited<ReturnType<typeof registryFixture>>;
    const cases: { name: string; role: Hex; call: (ctx: Ctx, caller: Wallet) => Promise<Hash> }[] = [
      {
        name: "registerAgentToken",
        role: ROLE.REGISTRAR,
        call: (_, c) =>
          registry.write.registerAgentToken([c.account.address, spareOperator.account.address, EMPTY_METADATA], {
            account: c.account,
          }),
      },
      {
        name: "createWorker",
        role: ROLE.REGISTRAR,
        call: (ctx, c) =>
          registry.write.createWorker([ctx.alpha.nftId, c.account.address, NEW_CONFIG], { account: c.account }),
      },
      {
        name: "registerAgent",
        role: ROLE.MANAGER,
        call: (_, c) =>
          registry.write.registerAgent([TIER.Queen, c.account.address, c.account.address], { account: c.account }),
      },
      {
        name: "setAgentOperator",
        role: ROLE.MANAGER,
        call: (ctx, c) => registry.write.setAgentOperator([ctx.queenId, c.account.address], { account: c.account }),
      },
      {
        name: "setWorkerStatus",
        role: ROLE.MANAGER,
        call: (ctx, c) =>
          registry.write.setWorkerStatus([ctx.alpha.workerId, WORKER_STATUS.Suspended], { account: c.account }),
      },
      {
        // setWorkerOperator itself is open to the NFT's owner (below); its relayed form is not.
        name: "setWorkerOperatorFor",
        role: ROLE.RELAYER,
        call: (ctx, c) =>
          registry.write.setWorkerOperatorFor([c.account.address, ctx.alpha.workerId, c.account.address], {
            account: c.account,
          }),
      },
      {
        name: "setWorkerConfig",
        role: ROLE.CONFIG,
        call: (ctx, c) => registry.write.setWorkerConfig([ctx.alpha.workerId, NEW_CONFIG], { account: c.account }),
      },
      {
        name: "markWorkerActive",
        role: ROLE.ACTIVITY,
        call: (ctx, c) => registry.write.markWorkerActive([ctx.alpha.workerId], { account: c.account }),
      },
      {
        name: "suspendWorker",
        role: ROLE.OVERRIDE,
        call: (ctx, c) =>
          registry.write.suspendWorker([ctx.alpha.workerId, TIER.Queen, ctx.queenId, 2n ** 63n], {
            account: c.account,
          }),
      },
      {
        name: "resumeWorker",
        role: ROLE.OVERRIDE,
        call: (ctx, c) =>
          registry.write.resumeWorker([ctx.alpha.workerId, TIER.Queen, ctx.queenId], { account: c.account }),
      },
      {
        name: "suspendAgent",
        role: ROLE.OVERRIDE,
        call: (ctx, c) =>
          registry.write.suspendAgent([ctx.scoutId, TIER.Queen, ctx.queenId, 2n ** 63n], { account: c.account }),
      },
      {
        name: "resumeAgent",
        role: ROLE.OVERRIDE,
        call: (ctx, c) => registry.write.resumeAgent([ctx.scoutId, TIER.Queen, ctx.queenId], { account: c.account }),
      },
      {
        name: "grantRole",
        role: ROLE.ADMIN,
        call: (_, c) => registry.write.grantRole([ROLE.MANAGER, c.account.address], { account: c.account }),
      },
      {
        name: "revokeRole",
        role: ROLE.ADMIN,
        call: (_, c) => registry.write.revokeRole([ROLE.MANAGER, admin.account.address], { account: c.account }),
      },
    ];

    for (const { name, role, call } of cases) {
      it(`${name} rejects an account without the role`, async () => {
        const ctx = await load();
        // The alpha NFT owner is a natural suspect for privilege: it must not help.
        await viem.assertions.revertWithCustomErrorWithArgs(
          call(ctx, alice),
          registry,
          "AccessControlUnauthorizedAccount",
          [alice.account.address, role],
        );
      });
    }
  });
});
