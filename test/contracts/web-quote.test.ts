import assert from "node:assert/strict";
import { maxUint256, parseEventLogs } from "viem";
import { describe, it } from "vitest";
import { mulberry32 } from "../../lib/random.ts";
import { quoteSwap } from "../../web/src/lib/quote.ts";
import { deployFixture, EMPTY_METADATA, POOL_SIDE } from "../support/contracts/fixtures.ts";

// The web app shows its own quote before the wallet signs (web/src/lib/quote.ts): it must be the
// deployed pool's, unit for unit, for buys and sells of every size, and refuse what the pool refuses.
const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed) >>> 0;

describe("web app's pool quote against AgentPool.quote()", async () => {
  const f = await deployFixture();
  const { spawner, stableToken, viem, publicClient, settings } = f;
  const { alice, carol } = f.wallets;

  it(`matches quote() and the executed swap over random sizes (seed ${SEED})`, async () => {
    console.log(`web-quote seed: ${SEED}`);
    const random = mulberry32(SEED);
    const hash = await spawner.write.spawn(["Quote Agent", "QTE", 0n, POOL_SIDE.STABLE, EMPTY_METADATA], {
      account: alice.account,
      value: settings.spawnFee,
    });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    const [spawned] = parseEventLogs({ abi: spawner.abi, eventName: "AgentSpawned", logs: receipt.logs });
    const pool = await viem.getContractAt("AgentPool", spawned.args.pool);
    const token = await viem.getContractAt("AgentToken", spawned.args.token);
    const virtual = spawned.args.virtualPairReserve;
    await stableToken.write.mint([carol.account.address, virtual * 100n], { account: carol.account });
    await stableToken.write.approve([pool.address, maxUint256], { account: carol.account });
    await token.write.approve([pool.address, maxUint256], { account: carol.account });
    const feePips = BigInt(await pool.read.feePips());

    const swapped = { buy: 0, sell: 0 };
    for (let i = 0; i < 30; i++) {
      const [reserveToken, reservePair, virtualPair] = await pool.read.getReserves();
      const held = await token.read.balanceOf([carol.account.address]);
      const isBuy = held === 0n || random() < 0.55;
      // Sizes from dust to a large share of the curve, spread over orders of magnitude.
      const scale = isBuy ? virtual : held;
      const amountIn =
        (BigInt(Math.floor(random() * 1e6)) * scale) / 10n ** BigInt(6 + Math.floor(random() * 8)) +
        BigInt(Math.floor(random() * 3));
      const mine = quoteSwap(isBuy, amountIn, { token: reserveToken, pair: reservePair, virtualPair, feePips });
      const tokenIn = isBuy ? stableToken.address : token.address;
      const theirs = await pool.read.quote([tokenIn, amountIn]).then(
        ([out, fee]) => ({ ok: true as const, amountOut: out, fee }),
        () => ({ ok: false as const }),
      );
      assert.equal(
        mine.ok,
        theirs.ok,
        `swap ${i}: ${isBuy ? "buy" : "sell"} ${amountIn}: ok ${mine.ok} vs ${theirs.ok}`,
      );
      if (!mine.ok || !theirs.ok) continue;
      assert.deepEqual(
        [mine.amountOut, mine.fee],
        [theirs.amountOut, theirs.fee],
        `swap ${i}: ${isBuy ? "buy" : "sell"} ${amountIn}`,
      );
      const swap = await pool.write.swapExactIn([tokenIn, amountIn, mine.amountOut, carol.account.address], {
        account: carol.account,
      });
      await publicClient.waitForTransactionReceipt({ hash: swap });
      swapped[isBuy ? "buy" : "sell"]++;
    }
    // Most sizes trade; both directions are exercised (a refusal is compared too, above).
    assert.ok(swapped.buy >= 5 && swapped.sell >= 5, `buys ${swapped.buy}, sells ${swapped.sell}`);
  });
});
