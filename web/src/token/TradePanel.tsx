import { useState } from "react";
import { type Address, erc20Abi, parseAbi, parseEther } from "viem";
import { useBalance, useReadContracts, useWriteContract } from "wagmi";
import { usePlatform } from "../context.ts";
import { formatUnitsAmount, parseAmount, parseSlippageBps } from "../lib/format.ts";
import { minimumOut, QUOTE_ERROR_TEXT, quoteSwap } from "../lib/quote.ts";
import { AgentPoolAbi } from "../wallet/abis.ts";
import { TxStatus } from "../wallet/TxStatus.tsx";
import { useTxFlow } from "../wallet/tx.ts";

const WRAP_ABI = parseAbi(["function deposit() payable"]);
/** Native coin a wrap leaves in the wallet for the gas of the approve and the swap after it. */
const GAS_RESERVE = parseEther("0.01");

interface Props {
  account: Address;
  token: Address;
  symbol: string;
  pool: Address;
  pairAsset: Address;
  pairSymbol: string;
  /** True once the API has indexed the swap with this hash. */
  isIndexed: (hash: string) => Promise<boolean>;
  onDone: () => void;
}

/**
 * Buy and sell on the token's pool from the user's wallet: the quote is the pool's own formula
 * on its current reserves (read from the chain), the minimum output follows the slippage
 * setting, and the pool's allowance is approved first when it is short. On a wrapped-native pool
 * a buy may spend the native coin too: what the wrapped balance lacks is wrapped first (as
 * Uniswap's interface does), keeping a little for gas.
 */
export function TradePanel({ account, token, symbol, pool, pairAsset, pairSymbol, isIndexed, onDone }: Props) {
  const [amountText, setAmountText] = useState("");
  const [slippageText, setSlippageText] = useState("1");
  const { writeContractAsync } = useWriteContract();
  const tx = useTxFlow();
  const { config } = usePlatform();
  const wrapsNative = config.contracts.WrappedNative?.toLowerCase() === pairAsset.toLowerCase();
  const native = useBalance({ address: account, query: { enabled: wrapsNative, refetchInterval: 5_000 } });

  const reads = useReadContracts({
    contracts: [
      { address: pool, abi: AgentPoolAbi, functionName: "getReserves" },
      { address: pool, abi: AgentPoolAbi, functionName: "feePips" },
      { address: pairAsset, abi: erc20Abi, functionName: "decimals" },
      { address: token, abi: erc20Abi, functionName: "balanceOf", args: [account] },
      { address: pairAsset, abi: erc20Abi, functionName: "balanceOf", args: [account] },
      { address: token, abi: erc20Abi, functionName: "allowance", args: [account, pool] },
      { address: pairAsset, abi: erc20Abi, functionName: "allowance", args: [account, pool] },
    ],
    allowFailure: false,
    query: { refetchInterval: 5_000 },
  });

  if (reads.error) return <p className="error-text">Could not read the pool from the chain: {reads.error.message}</p>;
  if (!reads.data) return <p className="muted">Reading the pool…</p>;
  const [
    [reserveToken, reservePair, virtualPair],
    feePips,
    pairDecimals,
    tokenBalance,
    pairBalance,
    tokenAllowance,
    pairAllowance,
  ] = reads.data;
  const reserves = { token: reserveToken, pair: reservePair, virtualPair, feePips: BigInt(feePips) };
  const slippage = parseSlippageBps(slippageText);
  const wrappable =
    wrapsNative && native.data && native.data.value > GAS_RESERVE ? native.data.value - GAS_RESERVE : 0n;
  /** What a buy of `amount` must wrap first. */
  const toWrap = (amount: bigint) => (wrapsNative && amount > pairBalance ? amount - pairBalance : 0n);

  const quoteFor = (isBuy: boolean) => {
    const decimals = isBuy ? pairDecimals : 18;
    const parsed = parseAmount(amountText, decimals);
    if (!parsed.ok) return { error: amountText.trim() === "" ? null : parsed.error };
    const quote = quoteSwap(isBuy, parsed.value, reserves);
    if (!quote.ok) return { error: QUOTE_ERROR_TEXT[quote.error] };
    const balance = isBuy ? pairBalance + wrappable : tokenBalance;
    if (parsed.value > balance)
      return {
        error:
          isBuy && wrapsNative
            ? `Your balance is ${formatUnitsAmount(pairBalance, decimals)} ${pairSymbol} and ${formatUnitsAmount(wrappable, 18)} ETH to wrap (0.01 ETH kept for gas)`
            : `Your balance is ${formatUnitsAmount(balance, decimals)} ${isBuy ? pairSymbol : symbol}`,
      };
    return { amountIn: parsed.value, amountOut: quote.amountOut, fee: quote.fee };
  };
  const buy = quoteFor(true);
  const sell = quoteFor(false);

  const send = async (isBuy: boolean) => {
    const q = isBuy ? buy : sell;
    if (!("amountIn" in q) || !q.amountIn || !slippage.ok) return;
    const tokenIn = isBuy ? pairAsset : token;
    const allowance = isBuy ? pairAllowance : tokenAllowance;
    const minOut = minimumOut(q.amountOut!, slippage.bps);
    const steps = [];
    const wrap = isBuy ? toWrap(q.amountIn) : 0n;
    if (wrap > 0n) {
      steps.push({
        label: `Wrap ${formatUnitsAmount(wrap, 18)} ETH`,
        send: () => writeContractAsync({ address: pairAsset, abi: WRAP_ABI, functionName: "deposit", value: wrap }),
      });
    }
    if (allowance < q.amountIn) {
      steps.push({
        label: `Approve ${isBuy ? pairSymbol : symbol}`,
        send: () =>
          writeContractAsync({ address: tokenIn, abi: erc20Abi, functionName: "approve", args: [pool, q.amountIn!] }),
      });
    }
    steps.push({
      label: isBuy ? `Buy ${symbol}` : `Sell ${symbol}`,
      send: () =>
        writeContractAsync({
          address: pool,
          abi: AgentPoolAbi,
          functionName: "swapExactIn",
          args: [tokenIn, q.amountIn!, minOut, account],
        }),
    });
    const hash = await tx.run(steps, (h) => isIndexed(h));
    // Cleared with "Done", not after the balances' round trip: an amount typed meanwhile stays.
    if (hash) {
      setAmountText("");
      onDone();
    }
    await Promise.all([reads.refetch(), native.refetch()]);
  };

  const describe = (isBuy: boolean) => {
    const q = isBuy ? buy : sell;
    if (q.error) return <span className="error-text">{q.error}</span>;
    if (!("amountOut" in q) || q.amountOut === undefined) return <span className="muted">Enter an amount</span>;
    const outDecimals = isBuy ? 18 : pairDecimals;
    const outSymbol = isBuy ? symbol : pairSymbol;
    const min = slippage.ok ? minimumOut(q.amountOut, slippage.bps) : null;
    return (
      <span>
        ≈ {formatUnitsAmount(q.amountOut, outDecimals, 6)} {outSymbol}
        {min !== null && (
          <span className="muted">
            {" "}
            (at least {formatUnitsAmount(min, outDecimals, 6)}; fee{" "}
            {formatUnitsAmount(q.fee!, isBuy ? pairDecimals : 18, 6)} {isBuy ? pairSymbol : symbol})
          </span>
        )}
        {isBuy && toWrap(q.amountIn!) > 0n && (
          <span className="muted"> Wraps {formatUnitsAmount(toWrap(q.amountIn!), 18)} ETH first.</span>
        )}
      </span>
    );
  };

  return (
    <form className="trade-form" onSubmit={(e) => e.preventDefault()} aria-label={`Trade ${symbol}`}>
      <p className="muted">
        Balances: {formatUnitsAmount(pairBalance, pairDecimals)} {pairSymbol} · {formatUnitsAmount(tokenBalance, 18)}{" "}
        {symbol}
        {wrapsNative && native.data ? ` · ${formatUnitsAmount(native.data.value, 18)} ETH` : ""}. Allowances are
        approved per trade, never unlimited.
      </p>
      <div className="field">
        <label htmlFor="trade-amount">Amount</label>
        <input
          id="trade-amount"
          inputMode="decimal"
          autoComplete="off"
          value={amountText}
          onChange={(e) => setAmountText(e.target.value)}
          aria-describedby="amount-hint"
        />
        <span id="amount-hint" className="field-hint">
          What you pay: {pairSymbol} to buy with, or {symbol} to sell.
        </span>
      </div>
      <div className="field">
        <label htmlFor="trade-slippage">Slippage (%)</label>
        <input
          id="trade-slippage"
          inputMode="decimal"
          value={slippageText}
          onChange={(e) => setSlippageText(e.target.value)}
          aria-invalid={!slippage.ok}
        />
        {!slippage.ok && <span className="error-text">{slippage.error}</span>}
      </div>
      <p>
        Buy with {amountText || "…"} {pairSymbol}: {describe(true)}
      </p>
      <p>
        Sell {amountText || "…"} {symbol}: {describe(false)}
      </p>
      <div className="row">
        <button
          type="button"
          className="buy"
          disabled={tx.busy || !("amountOut" in buy) || !slippage.ok}
          onClick={() => void send(true)}
        >
          Buy
        </button>
        <button
          type="button"
          className="sell"
          disabled={tx.busy || !("amountOut" in sell) || !slippage.ok}
          onClick={() => void send(false)}
        >
          Sell
        </button>
      </div>
      <TxStatus state={tx.state} />
    </form>
  );
}
