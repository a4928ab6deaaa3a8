// The withdrawal sender's public surface (exchange/README.md, "Withdrawals").
export {
  startWithdrawalSender,
  type WithdrawalFault,
  type WithdrawalSender,
  type WithdrawalSenderOptions,
} from "./sender.ts";
export { parseWithdrawalAddress } from "./address.ts";
