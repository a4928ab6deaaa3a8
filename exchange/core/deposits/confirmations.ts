// Which on-chain deposits to credit, and when: the pure core of the chain watcher (issue 27).
// Blocks arrive in order, each with its parent's hash; a transfer to a deposit address waits
// until its block is `confirmations` deep, then is credited exactly once, keyed by (tx hash, log
// index). A block whose parent is not the block we hold at that height means a reorganisation:
// the caller rewinds to the common ancestor (`rewind`), which forgets the pending transfers of
// the dropped blocks; they are credited only if they come back in the new branch and get deep
// enough there. A credited transfer that a reorg deeper than the confirmations removes cannot be
// taken back automatically: `rewind` reports it for an operator. No I/O, no clock.

export interface ChainTransfer {
  readonly txHash: string;
  readonly logIndex: number;
  /** The asset's contract (lower case), or "native". */
  readonly asset: string;
  /** The deposit address it was sent to (lower case). */
  readonly to: string;
  readonly amount: bigint;
}

export interface ChainBlock {
  readonly number: number;
  readonly hash: string;
  readonly parentHash: string;
  /** Transfers in this block to deposit addresses. */
  readonly transfers: readonly ChainTransfer[];
}

export interface PendingDeposit {
  readonly key: string;
  readonly transfer: ChainTransfer;
  readonly blockNumber: number;
  readonly blockHash: string;
}

export interface ConfirmationState {
  /** Hashes of the blocks held, by number: the window a reorg can be found in. */
  readonly blocks: ReadonlyMap<number, string>;
  readonly pending: ReadonlyMap<string, PendingDeposit>;
  /** Keys credited, with the block they were credited from. */
  readonly credited: ReadonlyMap<string, { readonly blockNumber: number; readonly blockHash: string }>;
}

export type ConfirmationEvent =
  | { readonly type: "seen"; readonly deposit: PendingDeposit }
  | { readonly type: "credit"; readonly deposit: PendingDeposit }
  | { readonly type: "dropped"; readonly deposit: PendingDeposit }
  | { readonly type: "reorged-after-credit"; readonly key: string; readonly blockNumber: number };

export type ApplyResult =
  | { readonly ok: true; readonly state: ConfirmationState; readonly events: readonly ConfirmationEvent[] }
  /** The block does not extend the chain held: rewind to below `at` (its parent's height) and fetch again. */
  | { readonly ok: false; readonly reason: "reorg" | "gap"; readonly at: number };

/** The deposit's one identity on a chain: a log is credited once whatever reorg shows it again. */
export const depositKey = (t: Pick<ChainTransfer, "txHash" | "logIndex">) => `${t.txHash.toLowerCase()}:${t.logIndex}`;

export const emptyConfirmationState = (): ConfirmationState => ({
  blocks: new Map(),
  pending: new Map(),
  credited: new Map(),
});

/** The highest block held, or undefined before the first. */
export function headOf(state: ConfirmationState): number | undefined {
  let head: number | undefined;
  for (const n of state.blocks.keys()) if (head === undefined || n > head) head = n;
  return head;
}

/**
 * Takes the next block. `confirmations` counts the block itself: 1 credits in the block's own
 * height, 2 once one block is on top. `window` bounds the block hashes kept (older ones cannot be
 * reorganised in practice, and memory stays flat).
 */
export function applyBlock(
  state: ConfirmationState,
  block: ChainBlock,
  confirmations: number,
  window = 128,
): ApplyResult {
  if (!Number.isInteger(confirmations) || confirmations < 1) throw new Error("confirmations must be at least 1");
  const head = headOf(state);
  if (head !== undefined) {
    if (block.number !== head + 1) return { ok: false, reason: "gap", at: head + 1 };
    if (state.blocks.get(head) !== block.parentHash) return { ok: false, reason: "reorg", at: head };
  }
  const blocks = new Map(state.blocks);
  blocks.set(block.number, block.hash);
  for (const n of blocks.keys()) if (n <= block.number - window) blocks.delete(n);
  const pending = new Map(state.pending);
  const credited = new Map(state.credited);
  const events: ConfirmationEvent[] = [];
  for (const transfer of block.transfers) {
    const key = depositKey(transfer);
    if (credited.has(key) || pending.has(key)) continue;
    const deposit = { key, transfer, blockNumber: block.number, blockHash: block.hash };
    pending.set(key, deposit);
    events.push({ type: "seen", deposit });
  }
  for (const deposit of [...pending.values()].sort((a, b) => a.blockNumber - b.blockNumber)) {
    if (block.number - deposit.blockNumber + 1 < confirmations) continue;
    pending.delete(deposit.key);
    credited.set(deposit.key, { blockNumber: deposit.blockNumber, blockHash: deposit.blockHash });
    events.push({ type: "credit", deposit });
  }
  // A credit from below the window can no longer be reorganised here nor seen again (its block is
  // never applied twice), so its key is forgotten and memory stays flat; the store's deposit id
  // still refuses a second credit after a restart rescans.
  for (const [key, at] of credited) if (at.blockNumber <= block.number - window) credited.delete(key);
  return { ok: true, state: { blocks, pending, credited }, events };
}

/**
 * Forgets every block above `keep` (the common ancestor the caller found): their pending
 * deposits are dropped, and credited ones from them are reported (a reorg deeper than the
 * confirmations; their credit stands until an operator acts). Credited keys stay credited, so a
 * log that reappears in the new branch is not credited twice.
 */
export function rewind(
  state: ConfirmationState,
  keep: number,
): { state: ConfirmationState; events: readonly ConfirmationEvent[] } {
  const blocks = new Map([...state.blocks].filter(([n]) => n <= keep));
  const pending = new Map(state.pending);
  const events: ConfirmationEvent[] = [];
  for (const deposit of state.pending.values()) {
    if (deposit.blockNumber <= keep) continue;
    pending.delete(deposit.key);
    events.push({ type: "dropped", deposit });
  }
  for (const [key, at] of state.credited)
    if (at.blockNumber > keep) events.push({ type: "reorged-after-credit", key, blockNumber: at.blockNumber });
  return { state: { blocks, pending, credited: state.credited }, events };
}
