export {
  type ApplyResult,
  applyBlock,
  type ChainBlock,
  type ChainTransfer,
  type ConfirmationEvent,
  type ConfirmationState,
  depositKey,
  emptyConfirmationState,
  headOf,
  type PendingDeposit,
  rewind,
} from "./confirmations.ts";
