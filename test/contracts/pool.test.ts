import { describe, it } from "vitest";
import assert from "node:assert/strict";
import { type Address, type Hash, getAddress, maxUint256, parseEventLogs, zeroAddress } from "viem";
import { deployFixture, EMPTY_METADATA, POOL_SIDE, type Fixture } from "../../support/contracts/fixtures.ts";

type Wallet = Fixture["wallets"]["alice"];

const LOCKED_SHARES_HOLDER = getAddress("0x000000000000000000000000000000000000dEaD");
const FEE_DENOMINATOR = 1_000_000n;

// ---------------------------------------------------------------------------------------------
// Independent model of the pool math (bigint), used to predict every output.
// ---------------------------------------------------------------------------------------------

interface Reserves {
  token: bigint;
  pair: bigint;
  virtual: bigint;
}

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

function amountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint, feePips: bigint) {
  const fee = ceilDiv(amountIn * feePips, FEE_DENOMINATOR);
  const inAfterFee = amountIn - fee;
  return { out: (inAfterFee * reserveOut) / (reserveIn + inAfterFee), fee };
}

/** Pair asset in, agent token out; the pair side counts its virtual reserve. */
const expectBuy = (r: Reserves, amountIn: bigint, feePips: bigint) =>
  amountOut(amountIn, r.pair + r.virtual, r.token, feePips);

/** Agent token in, pair asset out. */
const expectSell = (r: Reserves, amountIn: bigint, feePips: bigint) =>
  amountOut(amountIn, r.token, r.pair + r.virtual, feePips);

/** k over the effective pair reserve, the invariant swaps must never decrease. */
const kOf = (r: Reserves) => (r.pair + r.virtual) * r.token;

function expectAdd(r: Reserves, totalShares: bigint, amountToken: bigint) {
  const shares = (amountToken * totalShares) / r.token;
  return {
    shares,
    amountPair: ceilDiv(amountToken * r.pair, r.token),
    virtualAdded: (shares * r.virtual) / totalShares,
  };
}

function expectRemove(r: Reserves, totalShares: bigint, shares: bigint) {
  return {
    amountToken: (shares * r.token) / totalShares,
    amountPair: (shares * r.pair) / totalShares,
    // Rounded up: the real reserve must keep covering every token outside the pool.
    virtualRemoved: ceilDiv(shares * r.virtual, totalShares),
  };
}

/** Creation code of an EIP-1167 minimal proxy: an uninitialized clone, as the spawner makes them. */
function minimalProxyInitCode(implementation: Address): `0x${string}` {
  const impl = implementation.slice(2).toLowerCase();
  return `0x3d602d80600a3d3981f3363d3d373d3d3d363d73${impl}5af43d82803e903d91602b57fd5bf3`;
}

function sameAddress(actual: string, expected: string, message?: string) {
  assert.equal(getAddress(actual), getAddress(expected), message);
}

describe("AgentPool", async () => {
  const f = await deployFixture();
  const { spawner, stableToken, wrappedNative, viem, publicClient, networkHelpers, settings } = f;
  const { admin, relayer, operator, treasury, alice, bob, carol, dave } = f.wallets;
  const everyone = [admin, relayer, operator, treasury, alice, bob, carol, dave];
  const feePips = BigInt(settings.poolFeeTier);

  async function spawnMarket(owner: Wallet, symbol: string, side: (typeof POOL_SIDE)[keyof typeof POOL_SIDE]) {
    const hash = await spawner.write.spawn([`${symbol} Agent`, symbol, 0n, side, EMPTY_METADATA], {
      account: owner.account,
      value: settings.spawnFee,
    });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    const [spawned] = parseEventLogs({ abi: spawner.abi, eventName: "AgentSpawned", logs: receipt.logs });
    const isStable = side === POOL_SIDE.STABLE;
    return {
      owner,
      poolSupply: spawned.args.poolSupply,
      virtual: spawned.args.virtualPairReserve,
      token: await viem.getContractAt("AgentToken", spawned.args.token),
      pool: await viem.getContractAt("AgentPool", spawned.args.pool),
      // Only ERC-20 calls are made on the pair asset, so one ABI serves both assets.
      pair: await viem.getContractAt("MockStableToken", isStable ? stableToken.address : wrappedNative.address),
      isStable,
    };
  }

  // A STABLE pool owned by alice and a WRAPPED_NATIVE pool owned by bob, both untouched.
  async function spawnedPools() {
    return {
      stable: await spawnMarket(alice, "STB", POOL_SIDE.STABLE),
      native: await spawnMarket(bob, "NAT", POOL_SIDE.WRAPPED_NATIVE),
    };
  }

  type Market = Awaited<ReturnType<typeof spawnMarket>>;

  for (const sideName of ["stable", "native"] as const) {
    const load = async () => (await networkHelpers.loadFixture(spawnedPools))[sideName];

    describe(sideName === "stable" ? "STABLE pool (6-decimal mUSD)" : "WRAPPED_NATIVE pool (WETH)", () => {
      // -----------------------------------------------------------------------------------------
      // helpers bound to a market
      // -----------------------------------------------------------------------------------------

      async function reserves(m: Market): Promise<Reserves> {
        const [token, pair, virtual] = await m.pool.read.getReserves();
        return { token, pair, virtual };
      }

      /** Gives `who` pair-asset tokens (mint or wrap) and approves the pool for everything. */
      async function fundPair(m: Market, who: Wallet, amount: bigint) {
        if (m.isStable) {
          await stableToken.write.mint([who.account.address, amount], { account: who.account });
        } else {
          await wrappedNative.write.deposit({ account: who.account, value: amount });
        }
        await m.pair.write.approve([m.pool.address, maxUint256], { account: who.account });
      }

      async function approveToken(m: Market, who: Wallet) {
        await m.token.write.approve([m.pool.address, maxUint256], { account: who.account });
      }

      function swap(m: Market, who: Wallet, tokenIn: Address, amountIn: bigint, minOut = 0n, to?: Address) {
        return m.pool.write.swapExactIn([tokenIn, amountIn, minOut, to ?? who.account.address], {
          account: who.account,
        });
      }

      async function mined(hash: Hash | Promise<Hash>) {
        const receipt = await publicClient.waitForTransactionReceipt({ hash: await hash });
        assert.equal(receipt.status, "success");
        return receipt;
      }

      /** Carol buys with `amountIn` of the pair asset: gives the pool real pair reserves. */
      async function buyAs(m: Market, who: Wallet, amountIn: bigint) {
        await fundPair(m, who, amountIn);
        await mined(swap(m, who, m.pair.address, amountIn));
      }

      /** The pool holds exactly what it accounts for (nobody donated in these tests). */
      async function assertBacked(m: Market) {
        const r = await reserves(m);
        assert.equal(await m.token.read.balanceOf([m.pool.address]), r.token, "token reserve not backed");
        assert.equal(await m.pair.read.balanceOf([m.pool.address]), r.pair, "pair reserve not backed");
      }

      // -----------------------------------------------------------------------------------------

      describe("initialization", () => {
        it("starts with the pool supply as locked liquidity and only the virtual pair reserve", async () => {
          const m = await load();
          assert.deepEqual(await reserves(m), { token: m.poolSupply, pair: 0n, virtual: m.virtual });
          assert.equal(
            m.virtual,
            sideName === "stable" ? settings.stableVirtualReserve : settings.nativeVirtualReserve,
          );
          assert.equal(await m.pool.read.totalShares(), m.poolSupply);
          assert.equal(await m.pool.read.sharesOf([LOCKED_SHARES_HOLDER]), m.poolSupply);
          assert.equal(await m.pool.read.sharesOf([m.owner.account.address]), 0n);
          assert.equal(await m.pool.read.feePips(), settings.poolFeeTier);
          sameAddress(await m.pool.read.LOCKED_SHARES_HOLDER(), LOCKED_SHARES_HOLDER);
          sameAddress(await m.pool.read.token(), m.token.address);
          sameAddress(await m.pool.read.pairAsset(), m.pair.address);
          await assertBacked(m);
        });

        it("cannot be initialized again, by anyone", async () => {
          const m = await load();
          for (const caller of [admin, m.owner, carol]) {
            await viem.assertions.revertWithCustomError(
              m.pool.write.initialize([m.token.address, m.pair.address, 500, 1n], { account: caller.account }),
              m.pool,
              "AlreadyInitialized",
            );
          }
          assert.equal(await m.pool.read.feePips(), settings.poolFeeTier);
        });
      });

      describe("swaps", () => {
        it("buy: pays out the constant-product amount and emits Swap and Sync", async () => {
          const m = await load();
          const amountIn = m.virtual / 37n + 12_345n;
          await fundPair(m, carol, amountIn);
          const before = await reserves(m);
          const { out, fee } = expectBuy(before, amountIn, feePips);
          assert.ok(out > 0n && fee > 0n);
          assert.deepEqual(await m.pool.read.quote([m.pair.address, amountIn]), [out, fee]);

          const hash = await swap(m, carol, m.pair.address, amountIn, out, dave.account.address);
          await viem.assertions.emitWithArgs(hash, m.pool, "Swap", [
            carol.account.address,
            dave.account.address,
            true,
            amountIn,
            out,
            fee,
          ]);
          const after = { token: before.token - out, pair: before.pair + amountIn, virtual: before.virtual };
          await viem.assertions.emitWithArgs(hash, m.pool, "Sync", [after.token, after.pair, after.virtual]);

          assert.deepEqual(await reserves(m), after);
          assert.equal(await m.token.read.balanceOf([dave.account.address]), out);
          assert.equal(await m.token.read.balanceOf([carol.account.address]), 0n);
          assert.equal(await m.pair.read.balanceOf([carol.account.address]), 0n);
          await assertBacked(m);
        });

        it("sell: pays out real pair reserves at the constant-product amount and emits Swap and Sync", async () => {
          const m = await load();
          await buyAs(m, carol, m.virtual / 5n);
          await approveToken(m, carol);
          const tokensIn = (await m.token.read.balanceOf([carol.account.address])) / 3n;
          const before = await reserves(m);
          const { out, fee } = expectSell(before, tokensIn, feePips);
          assert.ok(out > 0n && out <= before.pair);
          assert.deepEqual(await m.pool.read.quote([m.token.address, tokensIn]), [out, fee]);

          const hash = await swap(m, carol, m.token.address, tokensIn, out, dave.account.address);
          await viem.assertions.emitWithArgs(hash, m.pool, "Swap", [
            carol.account.address,
            dave.account.address,
            false,
            tokensIn,
            out,
            fee,
          ]);
          const after = { token: before.token + tokensIn, pair: before.pair - out, virtual: before.virtual };
          await viem.assertions.emitWithArgs(hash, m.pool, "Sync", [after.token, after.pair, after.virtual]);
          assert.deepEqual(await reserves(m), after);
          assert.equal(await m.pair.read.balanceOf([dave.account.address]), out);
          await assertBacked(m);
        });

        it("quote() equals the executed output for buys and sells of many sizes", async () => {
          const m = await load();
          await fundPair(m, carol, m.virtual * 10n);
          await approveToken(m, carol);
          const buys = [2n, 333n, 1_000_001n, m.virtual / 1_000n, m.virtual / 3n, m.virtual * 2n];
          for (const amountIn of buys) {
            const [quoted] = await m.pool.read.quote([m.pair.address, amountIn]);
            const before = await m.token.read.balanceOf([carol.account.address]);
            await mined(swap(m, carol, m.pair.address, amountIn));
            assert.equal((await m.token.read.balanceOf([carol.account.address])) - before, quoted);
          }
          const held = await m.token.read.balanceOf([carol.account.address]);
          for (const amountIn of [10n ** 18n, 10n ** 18n + 7n, held / 50n, held / 4n]) {
            const [quoted] = await m.pool.read.quote([m.token.address, amountIn]);
            const before = await m.pair.read.balanceOf([carol.account.address]);
            await mined(swap(m, carol, m.token.address, amountIn));
            assert.equal((await m.pair.read.balanceOf([carol.account.address])) - before, quoted);
          }
        });

        it("refuses dust that would buy nothing (ZeroOutput), in both directions", async () => {
          const m = await load();
          await buyAs(m, carol, m.virtual / 10n);
          await approveToken(m, carol);
          // One base unit in: the rounded-up fee takes all of it, so nothing would come out.
          for (const tokenIn of [m.pair.address, m.token.address]) {
            await viem.assertions.revertWithCustomErrorWithArgs(
              m.pool.read.quote([tokenIn, 1n]),
              m.pool,
              "ZeroOutput",
              [1n],
            );
            await viem.assertions.revertWithCustomErrorWithArgs(swap(m, carol, tokenIn, 1n), m.pool, "ZeroOutput", [
              1n,
            ]);
          }
        });

        it("keeps the fee: a buy followed by selling everything back returns less than was paid", async () => {
          const m = await load();
          const paid = m.virtual / 10n;
          await buyAs(m, carol, paid);
          await approveToken(m, carol);
          const tokens = await m.token.read.balanceOf([carol.account.address]);
          await mined(swap(m, carol, m.token.address, tokens));
          const returned = await m.pair.read.balanceOf([carol.account.address]);
          assert.ok(returned < paid, `round trip returned ${returned} of ${paid}`);
          assert.equal((await reserves(m)).pair, paid - returned);
        });

        it("never decreases k (effective pair reserve x token reserve) over a sequence of swaps", async () => {
          const m = await load();
          for (const w of [carol, dave]) {
            await fundPair(m, w, m.virtual * 5n);
            await approveToken(m, w);
          }
          // Alternating traders, directions and sizes, down to the smallest that still buys something.
          const steps: Array<{ who: Wallet; buy: boolean; size: (r: Reserves, held: bigint) => bigint }> = [
            { who: carol, buy: true, size: (r) => r.virtual / 3n },
            { who: dave, buy: true, size: () => 2n },
            { who: carol, buy: false, size: (_r, held) => held / 2n },
            { who: dave, buy: true, size: (r) => r.virtual + 17n },
            { who: carol, buy: false, size: () => 10n ** 18n },
            { who: dave, buy: false, size: (_r, held) => held / 3n },
            { who: carol, buy: true, size: () => 999_999n },
            { who: dave, buy: false, size: (_r, held) => held },
            { who: carol, buy: false, size: (_r, held) => held },
            { who: dave, buy: true, size: (r) => r.virtual / 7n },
          ];
          let r = await reserves(m);
          for (const [i, step] of steps.entries()) {
            const held = await m.token.read.balanceOf([step.who.account.address]);
            const amountIn = step.size(r, held);
            const { out } = step.buy ? expectBuy(r, amountIn, feePips) : expectSell(r, amountIn, feePips);
            await mined(swap(m, step.who, step.buy ? m.pair.address : m.token.address, amountIn, out));
            const next = await reserves(m);
            assert.deepEqual(
              next,
              step.buy
                ? { token: r.token - out, pair: r.pair + amountIn, virtual: r.virtual }
                : { token: r.token + amountIn, pair: r.pair - out, virtual: r.virtual },
              `step ${i}`,
            );
            assert.ok(kOf(next) >= kOf(r), `k decreased at step ${i}`);
            r = next;
          }
          await assertBacked(m);
        });

        it("reverts with SlippageExceeded(amountOut, minAmountOut) below the minimum", async () => {
          const m = await load();
          const amountIn = m.virtual / 20n;
          await fundPair(m, carol, amountIn * 2n);
          const { out } = expectBuy(await reserves(m), amountIn, feePips);
          await viem.assertions.revertWithCustomErrorWithArgs(
            swap(m, carol, m.pair.address, amountIn, out + 1n),
            m.pool,
            "SlippageExceeded",
            [out, out + 1n],
          );
          await mined(swap(m, carol, m.pair.address, amountIn, out));

          await approveToken(m, carol);
          const sell = out / 2n;
          const { out: pairOut } = expectSell(await reserves(m), sell, feePips);
          await viem.assertions.revertWithCustomErrorWithArgs(
            swap(m, carol, m.token.address, sell, pairOut + 1n),
            m.pool,
            "SlippageExceeded",
            [pairOut, pairOut + 1n],
          );
        });

        it("reverts with InsufficientLiquidity when a sell needs more than the real pair reserve", async () => {
          const m = await load();
          await approveToken(m, m.owner);
          // A fresh pool has no real pair asset at all: any sell would dip into the virtual reserve.
          const sell = 10n ** 18n;
          const fresh = expectSell(await reserves(m), sell, feePips);
          await viem.assertions.revertWithCustomErrorWithArgs(
            swap(m, m.owner, m.token.address, sell),
            m.pool,
            "InsufficientLiquidity",
            [fresh.out, 0n],
          );
          await viem.assertions.revertWithCustomErrorWithArgs(
            m.pool.read.quote([m.token.address, sell]),
            m.pool,
            "InsufficientLiquidity",
            [fresh.out, 0n],
          );

          // After a small buy, selling twice what was bought would dip into the virtual reserve.
          // Nobody can hold that much (every token outside the pool was paid for), but the pool
          // refuses it before pulling any token.
          const bought = m.virtual / 100n;
          await buyAs(m, carol, bought);
          const big = 2n * (await m.token.read.balanceOf([carol.account.address]));
          const r = await reserves(m);
          const { out } = expectSell(r, big, feePips);
          assert.ok(out > r.pair);
          await viem.assertions.revertWithCustomErrorWithArgs(
            swap(m, carol, m.token.address, big),
            m.pool,
            "InsufficientLiquidity",
            [out, bought],
          );
        });

        it("pays out up to the real pair reserve but not one unit more, and every holder fits in it", async () => {
          const m = await load();
          await buyAs(m, carol, m.virtual / 100n);
          await buyAs(m, dave, m.virtual / 7n);
          const r = await reserves(m);
          // Largest sell whose output fits in the real reserve, found on the model.
          let lo = 0n;
          let hi = m.poolSupply;
          while (lo < hi) {
            const mid = (lo + hi + 1n) / 2n;
            if (expectSell(r, mid, feePips).out <= r.pair) lo = mid;
            else hi = mid - 1n;
          }
          const over = expectSell(r, lo + 1n, feePips).out;
          assert.ok(over > r.pair);
          await viem.assertions.revertWithCustomErrorWithArgs(
            swap(m, carol, m.token.address, lo + 1n),
            m.pool,
            "InsufficientLiquidity",
            [over, r.pair],
          );
          const { out } = expectSell(r, lo, feePips);
          assert.deepEqual((await m.pool.read.quote([m.token.address, lo]))[0], out);
          // No free tokens exist: everything outside the pool can be sold back at once.
          assert.ok(m.poolSupply - r.token <= lo, "holders own more than the real reserve can buy back");
          await approveToken(m, carol);
          await approveToken(m, dave);
          await mined(swap(m, carol, m.token.address, await m.token.read.balanceOf([carol.account.address])));
          await mined(swap(m, dave, m.token.address, await m.token.read.balanceOf([dave.account.address])));
          await assertBacked(m);
        });

        it("reverts with UnknownToken for any other input asset, in swaps and quotes", async () => {
          const pools = await networkHelpers.loadFixture(spawnedPools);
          const m = pools[sideName];
          const other = pools[sideName === "stable" ? "native" : "stable"];
          for (const stranger of [other.token.address, other.pair.address, dave.account.address, zeroAddress]) {
            await viem.assertions.revertWithCustomErrorWithArgs(
              swap(m, carol, stranger, 1_000n),
              m.pool,
              "UnknownToken",
              [getAddress(stranger)],
            );
            await viem.assertions.revertWithCustomErrorWithArgs(
              m.pool.read.quote([stranger, 1_000n]),
              m.pool,
              "UnknownToken",
              [getAddress(stranger)],
            );
          }
        });

        it("reverts with InvalidRecipient for the zero address and the pool itself", async () => {
          const m = await load();
          await fundPair(m, carol, 1_000_000n);
          for (const to of [zeroAddress, m.pool.address]) {
            await viem.assertions.revertWithCustomErrorWithArgs(
              swap(m, carol, m.pair.address, 1_000_000n, 0n, to),
              m.pool,
              "InvalidRecipient",
              [getAddress(to)],
            );
          }
        });

        it("reverts with ZeroAmount for a zero input either way", async () => {
          const m = await load();
          for (const tokenIn of [m.pair.address, m.token.address]) {
            await viem.assertions.revertWithCustomError(swap(m, carol, tokenIn, 0n), m.pool, "ZeroAmount");
          }
        });
      });

      describe("liquidity", () => {
        /** A pool with real pair reserves and token reserve != total shares, as after trading. */
        async function tradedMarket() {
          const m = await load();
          // The owner, the liquidity provider of these tests, buys its tokens on the curve.
          await buyAs(m, m.owner, 2n * m.virtual);
          await buyAs(m, carol, m.virtual / 3n + 1_234_567n);
          await approveToken(m, carol);
          await mined(swap(m, carol, m.token.address, (await m.token.read.balanceOf([carol.account.address])) / 3n));
          const r = await reserves(m);
          assert.ok(r.pair > 0n && r.token !== (await m.pool.read.totalShares()));
          return m;
        }

        async function addAs(m: Market, who: Wallet, amountToken: bigint, to: Wallet = who) {
          const r = await reserves(m);
          const supply = await m.pool.read.totalShares();
          const expected = expectAdd(r, supply, amountToken);
          await fundPair(m, who, expected.amountPair + 1n);
          await approveToken(m, who);
          const hash = await m.pool.write.addLiquidity([amountToken, expected.amountPair, 0n, to.account.address], {
            account: who.account,
          });
          await mined(hash);
          return { ...expected, hash, before: r, supply };
        }

        it("mints proportional shares for a deposit with the matching pair amount rounded up", async () => {
          const m = await tradedMarket();
          const lp = m.owner;
          const amountToken = 12_345_678_901_234_567_891n;
          const r = await reserves(m);
          const supply = await m.pool.read.totalShares();
          const expected = expectAdd(r, supply, amountToken);
          // The chosen amount does not divide evenly, so rounding up is exercised.
          assert.notEqual((amountToken * r.pair) % r.token, 0n);
          assert.ok(expected.shares > 0n && expected.amountPair > 0n);

          await fundPair(m, lp, expected.amountPair);
          await approveToken(m, lp);
          const tokensBefore = await m.token.read.balanceOf([lp.account.address]);
          const args = [amountToken, expected.amountPair, expected.shares, dave.account.address] as const;
          const { result } = await m.pool.simulate.addLiquidity(args, { account: lp.account.address });
          assert.deepEqual(result, [expected.shares, expected.amountPair]);

          const hash = await m.pool.write.addLiquidity(args, { account: lp.account });
          await viem.assertions.emitWithArgs(hash, m.pool, "Mint", [
            lp.account.address,
            dave.account.address,
            amountToken,
            expected.amountPair,
            expected.shares,
          ]);
          const after = {
            token: r.token + amountToken,
            pair: r.pair + expected.amountPair,
            virtual: r.virtual + expected.virtualAdded,
          };
          await viem.assertions.emitWithArgs(hash, m.pool, "Sync", [after.token, after.pair, after.virtual]);

          assert.deepEqual(await reserves(m), after);
          assert.equal(await m.pool.read.sharesOf([dave.account.address]), expected.shares);
          assert.equal(await m.pool.read.sharesOf([lp.account.address]), 0n);
          assert.equal(await m.pool.read.totalShares(), supply + expected.shares);
          assert.equal(await m.token.read.balanceOf([lp.account.address]), tokensBefore - amountToken);
          assert.equal(await m.pair.read.balanceOf([lp.account.address]), 0n);
          await assertBacked(m);
        });

        it("grows the virtual reserve with the deposit so the price does not move", async () => {
          for (const fresh of [true, false]) {
            const m = fresh ? await load() : await tradedMarket();
            // Liquidity needs tokens, and tokens are only bought: "fresh" is right after one buy.
            if (fresh) await buyAs(m, m.owner, m.virtual);
            const before = await reserves(m);
            const supply = await m.pool.read.totalShares();
            const { virtualAdded } = await addAs(m, m.owner, before.token / 10n + 3n);
            const after = await reserves(m);
            assert.ok(virtualAdded > 0n);
            assert.equal(after.virtual, before.virtual + virtualAdded);
            // price = (pair + virtual) / token, compared cross-multiplied. The rounded-up pair deposit
            // and the floored shares and virtual part may shift it by less than
            // (virtual/totalShares + 1) units per unit of the old token reserve.
            const drift = (after.pair + after.virtual) * before.token - (before.pair + before.virtual) * after.token;
            const bound = (before.virtual / supply + 2n) * before.token;
            assert.ok(drift < bound && -drift < bound, `price moved: drift ${drift}, bound ${bound}`);
          }
        });

        it("reverts with PairAmountExceeded(required, max) when the cap is too low", async () => {
          const m = await tradedMarket();
          const amountToken = 10n ** 21n + 1n;
          const expected = expectAdd(await reserves(m), await m.pool.read.totalShares(), amountToken);
          await fundPair(m, m.owner, expected.amountPair);
          await approveToken(m, m.owner);
          await viem.assertions.revertWithCustomErrorWithArgs(
            m.pool.write.addLiquidity([amountToken, expected.amountPair - 1n, 0n, m.owner.account.address], {
              account: m.owner.account,
            }),
            m.pool,
            "PairAmountExceeded",
            [expected.amountPair, expected.amountPair - 1n],
          );
        });

        it("reverts with InsufficientShares below minShares", async () => {
          const m = await tradedMarket();
          const amountToken = 10n ** 21n;
          const expected = expectAdd(await reserves(m), await m.pool.read.totalShares(), amountToken);
          await fundPair(m, m.owner, expected.amountPair);
          await approveToken(m, m.owner);
          await viem.assertions.revertWithCustomErrorWithArgs(
            m.pool.write.addLiquidity(
              [amountToken, expected.amountPair, expected.shares + 1n, m.owner.account.address],
              { account: m.owner.account },
            ),
            m.pool,
            "InsufficientShares",
            [expected.shares, expected.shares + 1n],
          );
        });

        it("rejects a zero deposit and invalid recipients", async () => {
          const m = await load();
          await approveToken(m, m.owner);
          await viem.assertions.revertWithCustomError(
            m.pool.write.addLiquidity([0n, 0n, 0n, m.owner.account.address], { account: m.owner.account }),
            m.pool,
            "ZeroAmount",
          );
          for (const to of [zeroAddress, m.pool.address]) {
            await viem.assertions.revertWithCustomErrorWithArgs(
              m.pool.write.addLiquidity([10n ** 18n, 0n, 0n, to], { account: m.owner.account }),
              m.pool,
              "InvalidRecipient",
              [getAddress(to)],
            );
          }
        });

        it("burns shares for the floor share of real reserves and emits Burn and Sync", async () => {
          const m = await tradedMarket();
          const { shares } = await addAs(m, m.owner, 7n * 10n ** 24n + 13n);
          await buyAs(m, dave, m.virtual / 9n);

          const burn = shares / 3n + 1n;
          const r = await reserves(m);
          const supply = await m.pool.read.totalShares();
          const expected = expectRemove(r, supply, burn);
          assert.ok(expected.amountToken > 0n && expected.amountPair > 0n);
          const pairBefore = await m.pair.read.balanceOf([carol.account.address]);
          const tokensBefore = await m.token.read.balanceOf([carol.account.address]);

          const args = [burn, expected.amountToken, expected.amountPair, carol.account.address] as const;
          const { result } = await m.pool.simulate.removeLiquidity(args, { account: m.owner.account.address });
          assert.deepEqual(result, [expected.amountToken, expected.amountPair]);
          const hash = await m.pool.write.removeLiquidity(args, { account: m.owner.account });
          await viem.assertions.emitWithArgs(hash, m.pool, "Burn", [
            m.owner.account.address,
            carol.account.address,
            expected.amountToken,
            expected.amountPair,
            burn,
          ]);
          const after = {
            token: r.token - expected.amountToken,
            pair: r.pair - expected.amountPair,
            virtual: r.virtual - expected.virtualRemoved,
          };
          await viem.assertions.emitWithArgs(hash, m.pool, "Sync", [after.token, after.pair, after.virtual]);

          assert.deepEqual(await reserves(m), after);
          assert.equal(await m.pool.read.sharesOf([m.owner.account.address]), shares - burn);
          assert.equal(await m.pool.read.totalShares(), supply - burn);
          assert.equal(await m.token.read.balanceOf([carol.account.address]), tokensBefore + expected.amountToken);
          assert.equal(await m.pair.read.balanceOf([carol.account.address]), pairBefore + expected.amountPair);
          await assertBacked(m);
        });

        it("reverts with InsufficientShareBalance(balance, requested) beyond the caller's shares", async () => {
          const m = await tradedMarket();
          const { shares } = await addAs(m, m.owner, 10n ** 22n);
          await viem.assertions.revertWithCustomErrorWithArgs(
            m.pool.write.removeLiquidity([shares + 1n, 0n, 0n, m.owner.account.address], {
              account: m.owner.account,
            }),
            m.pool,
            "InsufficientShareBalance",
            [shares, shares + 1n],
          );
          await viem.assertions.revertWithCustomErrorWithArgs(
            m.pool.write.removeLiquidity([1n, 0n, 0n, dave.account.address], { account: dave.account }),
            m.pool,
            "InsufficientShareBalance",
            [0n, 1n],
          );
        });

        it("enforces the minimum amounts of a withdrawal with SlippageExceeded", async () => {
          const m = await tradedMarket();
          const { shares } = await addAs(m, m.owner, 10n ** 23n);
          const expected = expectRemove(await reserves(m), await m.pool.read.totalShares(), shares);
          const to = m.owner.account.address;
          await viem.assertions.revertWithCustomErrorWithArgs(
            m.pool.write.removeLiquidity([shares, expected.amountToken + 1n, 0n, to], { account: m.owner.account }),
            m.pool,
            "SlippageExceeded",
            [expected.amountToken, expected.amountToken + 1n],
          );
          await viem.assertions.revertWithCustomErrorWithArgs(
            m.pool.write.removeLiquidity([shares, 0n, expected.amountPair + 1n, to], { account: m.owner.account }),
            m.pool,
            "SlippageExceeded",
            [expected.amountPair, expected.amountPair + 1n],
          );
          await mined(
            m.pool.write.removeLiquidity([shares, expected.amountToken, expected.amountPair, to], {
              account: m.owner.account,
            }),
          );
          assert.equal(await m.pool.read.sharesOf([to]), 0n);
        });

        it("rejects a zero withdrawal and invalid recipients", async () => {
          const m = await tradedMarket();
          await addAs(m, m.owner, 10n ** 20n);
          await viem.assertions.revertWithCustomError(
            m.pool.write.removeLiquidity([0n, 0n, 0n, m.owner.account.address], { account: m.owner.account }),
            m.pool,
            "ZeroAmount",
          );
          for (const to of [zeroAddress, m.pool.address]) {
            await viem.assertions.revertWithCustomErrorWithArgs(
              m.pool.write.removeLiquidity([1n, 0n, 0n, to], { account: m.owner.account }),
              m.pool,
              "InvalidRecipient",
              [getAddress(to)],
            );
          }
        });

        it("never returns more than was deposited on an immediate add then remove", async () => {
          const m = await tradedMarket();
          for (const amountToken of [1n, 999n, 10n ** 18n + 1n, 123_456_789_123_456_789_123n, 10n ** 26n + 7n]) {
            const poolBefore = await reserves(m);
            const { shares, amountPair } = await addAs(m, m.owner, amountToken);
            assert.ok(shares > 0n);
            const hash = await m.pool.write.removeLiquidity([shares, 0n, 0n, m.owner.account.address], {
              account: m.owner.account,
            });
            const receipt = await mined(hash);
            const [burned] = parseEventLogs({ abi: m.pool.abi, eventName: "Burn", logs: receipt.logs });
            assert.ok(burned.args.amountToken <= amountToken, `token profit for ${amountToken}`);
            assert.ok(burned.args.amountPair <= amountPair, `pair profit for ${amountToken}`);
            // Whatever rounding leaves behind stays in the pool. The virtual reserve alone may lose
            // the one unit the withdrawal rounds up, which lowers the price by dust, never raises it.
            const poolAfter = await reserves(m);
            assert.ok(poolAfter.token >= poolBefore.token && poolAfter.pair >= poolBefore.pair);
            assert.ok(poolAfter.virtual + 1n >= poolBefore.virtual);
          }
          await assertBacked(m);
        });

        it("locks the initial shares: nobody can withdraw them", async () => {
          const m = await tradedMarket();
          const locked = await m.pool.read.sharesOf([LOCKED_SHARES_HOLDER]);
          assert.equal(locked, m.poolSupply);
          for (const who of everyone) {
            await viem.assertions.revertWithCustomErrorWithArgs(
              m.pool.write.removeLiquidity([locked, 0n, 0n, who.account.address], { account: who.account }),
              m.pool,
              "InsufficientShareBalance",
              [0n, locked],
            );
          }
          // Shares cannot move any other way: the only state-changing functions are these.
          const stateChanging = m.pool.abi
            .filter((item) => item.type === "function" && item.stateMutability !== "view")
            .map((item) => (item as { name: string }).name)
            .sort();
          assert.deepEqual(stateChanging, ["addLiquidity", "initialize", "removeLiquidity", "swapExactIn"]);
          assert.equal(await m.pool.read.sharesOf([LOCKED_SHARES_HOLDER]), locked);
        });

        it("keeps the locked liquidity after every other provider has left", async () => {
          const m = await tradedMarket();
          const { shares } = await addAs(m, m.owner, 10n ** 24n);
          await mined(
            m.pool.write.removeLiquidity([shares, 0n, 0n, m.owner.account.address], { account: m.owner.account }),
          );
          const r = await reserves(m);
          assert.equal(await m.pool.read.totalShares(), m.poolSupply);
          assert.ok(r.token > 0n && r.pair > 0n && r.virtual > 0n);
          // Trading still works against what is left.
          await buyAs(m, dave, m.virtual / 100n);
        });
      });
    });
  }

  describe("clone initialization", () => {
    async function freshPoolClone() {
      const hash = await admin.deployContract({
        abi: [],
        bytecode: minimalProxyInitCode(f.poolImplementation.address),
        account: admin.account,
      });
      const { contractAddress } = await publicClient.waitForTransactionReceipt({ hash });
      return viem.getContractAt("AgentPool", contractAddress!);
    }

    it("cannot initialize the implementation", async () => {
      await networkHelpers.loadFixture(spawnedPools);
      const implementation = f.poolImplementation;
      await viem.assertions.revertWithCustomError(
        implementation.write.initialize([stableToken.address, wrappedNative.address, 3000, 1n]),
        implementation,
        "AlreadyInitialized",
      );
    });

    it("needs seeded tokens, a virtual reserve and a fee below 100%", async () => {
      await networkHelpers.loadFixture(spawnedPools);
      const clone = await freshPoolClone();
      // The mock stable token stands in for an agent token: only its balance matters here.
      await viem.assertions.revertWithCustomErrorWithArgs(
        clone.write.initialize([stableToken.address, wrappedNative.address, 3000, 5n]),
        clone,
        "EmptyReserves",
        [0n, 5n],
      );
      await stableToken.write.mint([clone.address, 1_000n]);
      await viem.assertions.revertWithCustomErrorWithArgs(
        clone.write.initialize([stableToken.address, wrappedNative.address, 3000, 0n]),
        clone,
        "EmptyReserves",
        [1_000n, 0n],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        clone.write.initialize([stableToken.address, wrappedNative.address, 1_000_000, 5n]),
        clone,
        "InvalidFee",
        [1_000_000n],
      );
    });

    it("locks the seeded balance to 0x…dEaD, emits Mint and Sync, then refuses a second call", async () => {
      await networkHelpers.loadFixture(spawnedPools);
      const clone = await freshPoolClone();
      await stableToken.write.mint([clone.address, 1_000n]);
      const hash = await clone.write.initialize([stableToken.address, wrappedNative.address, 500, 5n], {
        account: carol.account,
      });
      await viem.assertions.emitWithArgs(hash, clone, "Mint", [
        carol.account.address,
        LOCKED_SHARES_HOLDER,
        1_000n,
        0n,
        1_000n,
      ]);
      await viem.assertions.emitWithArgs(hash, clone, "Sync", [1_000n, 0n, 5n]);
      assert.deepEqual(await clone.read.getReserves(), [1_000n, 0n, 5n]);
      assert.equal(await clone.read.feePips(), 500);
      await viem.assertions.revertWithCustomError(
        clone.write.initialize([stableToken.address, wrappedNative.address, 500, 5n]),
        clone,
        "AlreadyInitialized",
      );
    });
  });
});
