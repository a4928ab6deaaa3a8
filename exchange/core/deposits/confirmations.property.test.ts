import assert from "node:assert/strict";
import fc from "fast-check";
import { describe, it } from "vitest";
import {
  applyBlock,
  type ChainBlock,
  type ChainTransfer,
  type ConfirmationEvent,
  type ConfirmationState,
  depositKey,
  emptyConfirmationState,
  headOf,
  rewind,
} from "./confirmations.ts";

const seed = Number(process.env.FC_SEED ?? 20261127);
const numRuns = Number(process.env.FC_RUNS ?? 300);
console.log(`deposit confirmations property test: FC_SEED=${seed} FC_RUNS=${numRuns}`);

/**
 * The chain as an adversary shapes it: blocks extend it, and reorgs replace its last `depth`
 * blocks with a new branch that may carry some of the dropped transfers again (a reorg moves a
 * transaction) and new ones (a double spend: the attacker's deposit vanishes, another appears).
 */
type Step =
  | { kind: "extend"; transfers: number }
  | { kind: "reorg"; depth: number; replay: boolean[]; newBlocks: number; transfers: number };

const step = (maxDepth: number) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant("extend" as const), transfers: fc.nat(3) }) },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("reorg" as const),
        depth: fc.integer({ min: 1, max: maxDepth }),
        replay: fc.array(fc.boolean(), { maxLength: 8 }),
        newBlocks: fc.integer({ min: 1, max: maxDepth + 2 }),
        transfers: fc.nat(2),
      }),
    },
  );

class Chain {
  blocks: ChainBlock[] = [{ number: 0, hash: "h0", parentHash: "genesis", transfers: [] }];
  private next = 0;
  private fresh(): ChainTransfer {
    this.next++;
    return {
      txHash: `0xtx${this.next}`,
      logIndex: this.next % 3,
      asset: "usdt",
      to: "0xdeposit",
      amount: BigInt(this.next),
    };
  }
  private push(transfers: ChainTransfer[]) {
    const parent = this.blocks.at(-1)!;
    this.blocks.push({
      number: parent.number + 1,
      hash: `h${parent.number + 1}-${++this.next}`,
      parentHash: parent.hash,
      transfers,
    });
  }
  apply(s: Step) {
    if (s.kind === "extend") return this.push(Array.from({ length: s.transfers }, () => this.fresh()));
    const depth = Math.min(s.depth, this.blocks.length - 1);
    const dropped = this.blocks.splice(this.blocks.length - depth, depth).flatMap((b) => b.transfers);
    const replayed = dropped.filter((_, i) => s.replay[i] ?? false);
    for (let i = 0; i < s.newBlocks; i++)
      this.push([
        ...(i === 0 ? replayed : []),
        ...Array.from({ length: i === 0 ? s.transfers : 0 }, () => this.fresh()),
      ]);
  }
  get tip() {
    return this.blocks.at(-1)!.number;
  }
}

/** The watcher's loop over the pure core: feed blocks, and on a reorg find the common ancestor. */
function follow(chain: Chain, state: ConfirmationState, confirmations: number, events: ConfirmationEvent[]) {
  for (;;) {
    const head = headOf(state);
    if (head !== undefined && head >= chain.tip && state.blocks.get(head) === chain.blocks[head]?.hash) return state;
    const next = head === undefined ? 0 : head + 1;
    const block = chain.blocks[next];
    const result =
      block === undefined
        ? ({ ok: false, reason: "reorg", at: head! } as const)
        : applyBlock(state, block, confirmations);
    if (result.ok) {
      events.push(...result.events);
      state = result.state;
      continue;
    }
    let keep = result.at;
    while (keep >= 0 && state.blocks.get(keep) !== chain.blocks[keep]?.hash) keep--;
    const rewound = rewind(state, keep);
    events.push(...rewound.events);
    state = rewound.state;
  }
}

/** Keys of the canonical chain's transfers at least `confirmations` deep. */
const confirmedOnChain = (chain: Chain, confirmations: number) =>
  new Set(
    chain.blocks.filter((b) => chain.tip - b.number + 1 >= confirmations).flatMap((b) => b.transfers.map(depositKey)),
  );

describe("deposit confirmations against an adversarial chain", () => {
  it("reorgs shallower than the confirmations: every credit stays on the chain, every deep transfer is credited, once", () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 6 })
          .chain((n) => fc.tuple(fc.constant(n), fc.array(step(Math.max(1, n - 1)), { maxLength: 40 }))),
        ([confirmations, steps]) => {
          const chain = new Chain();
          const events: ConfirmationEvent[] = [];
          let state = emptyConfirmationState();
          for (const s of steps) {
            // A reorg never reaches a credited block here: at most confirmations - 1 deep.
            if (s.kind === "reorg" && s.depth >= confirmations) continue;
            chain.apply(s);
            state = follow(chain, state, confirmations, events);
          }
          const credits = events
            .filter((e) => e.type === "credit")
            .map((e) => (e.type === "credit" ? e.deposit.key : ""));
          assert.equal(new Set(credits).size, credits.length, "no deposit credited twice");
          // Every credit is still on the canonical chain (no reorg this shallow can take one away),
          // and everything deep enough on it is credited. (A reorg onto a shorter branch may leave
          // a credited transfer less deep than it was when credited: it was deep enough then.)
          const onChain = new Set(chain.blocks.flatMap((b) => b.transfers.map(depositKey)));
          for (const key of credits) assert.ok(onChain.has(key), `${key} credited, then reorged off the chain`);
          for (const key of confirmedOnChain(chain, confirmations))
            assert.ok(credits.includes(key), `${key} not credited`);
          assert.deepEqual(
            events.filter((e) => e.type === "reorged-after-credit"),
            [],
          );
        },
      ),
      { seed, numRuns },
    );
  });

  it("deeper reorgs: nothing credited twice, every canonical confirmed transfer credited, every other credit reported", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }).chain((n) => fc.tuple(fc.constant(n), fc.array(step(n + 3), { maxLength: 40 }))),
        ([confirmations, steps]) => {
          const chain = new Chain();
          const events: ConfirmationEvent[] = [];
          let state = emptyConfirmationState();
          for (const s of steps) {
            chain.apply(s);
            state = follow(chain, state, confirmations, events);
          }
          const credits = events.flatMap((e) => (e.type === "credit" ? [e.deposit.key] : []));
          assert.equal(new Set(credits).size, credits.length, "no deposit credited twice");
          const confirmed = confirmedOnChain(chain, confirmations);
          for (const key of confirmed) assert.ok(credits.includes(key), `${key} is deep on the chain but not credited`);
          const reported = new Set(events.flatMap((e) => (e.type === "reorged-after-credit" ? [e.key] : [])));
          for (const key of credits)
            if (!confirmed.has(key) && !chain.blocks.some((b) => b.transfers.some((t) => depositKey(t) === key)))
              assert.ok(reported.has(key), `${key} was credited, then reorged away, and nobody was told`);
        },
      ),
      { seed, numRuns },
    );
  });
});

describe("applyBlock and rewind", () => {
  const transfer: ChainTransfer = { txHash: "0xA", logIndex: 0, asset: "usdt", to: "0xd", amount: 5n };
  const block = (number: number, parent: string, transfers: ChainTransfer[] = []): ChainBlock => ({
    number,
    hash: `b${number}${parent}`,
    parentHash: parent,
    transfers,
  });

  it("credits after the confirmations, counting the block itself", () => {
    const b1 = block(1, "x", [transfer]);
    let r = applyBlock(emptyConfirmationState(), b1, 2);
    assert.ok(r.ok);
    assert.deepEqual(
      r.events.map((e) => e.type),
      ["seen"],
    );
    r = applyBlock(r.state, block(2, b1.hash), 2);
    assert.ok(r.ok);
    assert.deepEqual(
      r.events.map((e) => e.type),
      ["credit"],
    );
  });

  it("says reorg for a block whose parent is not the head, gap for a skipped height", () => {
    const b1 = block(1, "x");
    const r = applyBlock(emptyConfirmationState(), b1, 2);
    assert.ok(r.ok);
    assert.deepEqual(applyBlock(r.state, block(2, "other"), 2), { ok: false, reason: "reorg", at: 1 });
    assert.deepEqual(applyBlock(r.state, block(3, b1.hash), 2), { ok: false, reason: "gap", at: 2 });
  });

  it("a deposit reorged away before its confirmations is dropped, not credited", () => {
    const b1 = block(1, "x", [transfer]);
    const r = applyBlock(emptyConfirmationState(), b1, 3);
    assert.ok(r.ok);
    const rewound = rewind(r.state, 0);
    assert.deepEqual(
      rewound.events.map((e) => e.type),
      ["dropped"],
    );
    assert.equal(rewound.state.pending.size, 0);
  });

  it("keeps memory flat: blocks and credited keys older than the window are forgotten", () => {
    let state = emptyConfirmationState();
    let parent = "x";
    for (let n = 1; n <= 50; n++) {
      const b = block(n, parent, [{ ...transfer, txHash: `0x${n}` }]);
      const r = applyBlock(state, b, 2, 8);
      assert.ok(r.ok);
      state = r.state;
      parent = b.hash;
    }
    assert.equal(state.blocks.size, 8, "the window's 8 blocks");
    assert.ok(state.credited.size <= 8, `credited keys kept: ${state.credited.size}`);
    assert.equal(state.pending.size, 1, "the head's transfer waits for its second block");
  });
});
