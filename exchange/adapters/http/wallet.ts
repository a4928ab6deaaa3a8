import { OpenAPIHono } from "../../../lib/http/index.ts";
import { z } from "zod";
import type { SignedVariables } from "../auth/index.ts";
import { DomainError, type Exchange } from "../../application/index.ts";
import type { ChainGateway } from "../chain/index.ts";
import { commissionSchema } from "./public.ts";
import { serve } from "./serve.ts";
import { pageQuery, pageSchema, withdrawalBody } from "./schemas.ts";
import { balanceViews, commissionView, pageView, withdrawalView } from "./views.ts";
import { depositsWithPending } from "./deposits.ts";

// Balances, deposits, withdrawals and the caller's commissions (signed, or a web session: app.ts authenticates first).

const decimal = z.number().meta({ description: "Decimal, exact (JSON number)" });
export const balanceSchema = z.object({
  currencyCode: z.string(),
  available: decimal,
  locked: decimal,
  total: decimal,
});
export const depositSchema = z.object({
  id: z.string(),
  currencyCode: z.string(),
  amount: decimal,
  fee: decimal.meta({ description: "Refill commission; 0 while pending" }),
  credited: decimal.meta({ description: "amount - fee; 0 while pending" }),
  reference: z.string().nullable(),
  status: z.enum(["pending", "credited"]).meta({
    description:
      "pending: seen on-chain, not deep enough yet (it may still be reorganised away); credited: on the balance",
  }),
  txHash: z.string().nullable().meta({ description: "The deposit's transaction; null for an operator's deposit" }),
  confirmations: z.number().int().nullable().meta({
    description:
      "Blocks deep, its own counted (at least requiredConfirmations once credited); null for an operator's deposit",
  }),
  requiredConfirmations: z.number().int().nullable(),
  createdAt: z.string().meta({ description: "Credited at, or first seen at while pending (ISO 8601)" }),
});
const depositAddressSchema = z.object({
  currencyCode: z.string(),
  chainId: z.number().int(),
  address: z.string().meta({ description: "EIP-55 checksummed; the same on every call and for every currency" }),
  confirmations: z.number().int().meta({ description: "Blocks deep (its own counted) before a deposit is credited" }),
});
const depositAddressQuery = z.object({
  currencyCode: z.string().regex(/^[A-Z0-9]{1,16}$/, "must be a currency code"),
});
export const withdrawalSchema = z.object({
  id: z.uuid(),
  clientWithdrawalId: z.string().nullable(),
  currencyCode: z.string(),
  amount: decimal.meta({ description: "Debited from the balance" }),
  fee: decimal,
  sent: decimal.meta({ description: "amount - fee, what leaves the exchange" }),
  address: z.string(),
  status: z.enum(["pending", "sent", "completed", "failed"]).meta({
    description:
      "pending (debited; waiting to be sent, or for an operator when approvalRequired) -> sent (txHash) -> completed once the transaction is " +
      "DEPOSIT_CONFIRMATIONS blocks deep; failed (reverted, dropped or rejected): amount and fee returned to available",
  }),
  txHash: z.string().nullable().meta({ description: "The transaction carrying it; null until sent" }),
  confirmations: z
    .number()
    .int()
    .optional()
    .meta({ description: "While sent: blocks deep its transaction is (its own counted), when known" }),
  waitingReason: z.string().optional().meta({
    description:
      "While pending: why the chain gateway has not sent it yet (the hot wallet short of the coin until a sweep or a top-up, the node refusing); absent when nothing holds it",
  }),
  approvalRequired: z.boolean().meta({ description: "Above the currency's approval threshold: waits for an operator" }),
  approvedAt: z.string().nullable(),
  failureReason: z.string().nullable(),
  createdAt: z.string(),
  sentAt: z.string().nullable(),
  completedAt: z.string().nullable(),
  failedAt: z.string().nullable(),
});

export function walletApi(exchange: Exchange, gateway?: ChainGateway) {
  const app = new OpenAPIHono<{ Variables: SignedVariables }>();

  serve(
    app,
    "/api",
    {
      method: "get",
      path: "/api/balances",
      tag: "Wallet",
      summary: "The caller's balance in every currency",
      access: "signed-or-session",
      response: z.array(balanceSchema),
    },
    ({ c }) => c.json(balanceViews(exchange, c.get("auth").userId)),
  );

  serve(
    app,
    "/api",
    {
      method: "get",
      path: "/api/deposits",
      tag: "Wallet",
      summary:
        "The caller's deposits, newest first: pending ones (seen on-chain, not deep enough yet) before credited ones",
      access: "signed-or-session",
      query: pageQuery,
      response: pageSchema(depositSchema),
    },
    async ({ query, c }) => c.json(await depositsWithPending(exchange, gateway, c.get("auth").userId, query)),
  );

  serve(
    app,
    "/api",
    {
      method: "get",
      path: "/api/deposits/address",
      tag: "Wallet",
      summary: "The caller's deposit address on the exchange's chain",
      description:
        "A per-user forwarder contract's CREATE2 address (counterfactual: nothing is deployed until it is swept), the same on every call and " +
        "for every currency. Send the currency's token (USDT, a listed agent token, the wrapped native coin) or the native coin to it with a " +
        "plain transfer; it is credited after `confirmations` blocks.",
      access: "signed-or-session",
      query: depositAddressQuery,
      response: depositAddressSchema,
      errors: [
        { status: 400, code: "UNKNOWN_CURRENCY", when: "currencyCode is not a currency" },
        {
          status: 400,
          code: "DEPOSITS_DISABLED",
          when: "deposits of the currency are off, or it has no asset on the exchange's chain",
        },
      ],
    },
    ({ query, c }) => {
      const currency = exchange.reference.currency(query.currencyCode);
      if (!currency.row.canDeposit || gateway === undefined || !gateway.moves(currency.row.code))
        throw new DomainError(
          "DEPOSITS_DISABLED",
          gateway === undefined
            ? "Deposits from the chain are off: the exchange is not joined to a chain (CHAIN_GATEWAY)"
            : `Deposits of ${currency.row.code} are disabled`,
        );
      return c.json({
        currencyCode: currency.row.code,
        chainId: gateway.chainId,
        address: gateway.depositAddress(c.get("auth").userId),
        confirmations: gateway.confirmations,
      });
    },
  );

  serve(
    app,
    "/api",
    {
      method: "get",
      path: "/api/withdrawals",
      tag: "Wallet",
      summary: "The caller's withdrawals, newest first",
      access: "signed-or-session",
      query: pageQuery,
      response: pageSchema(withdrawalSchema),
    },
    async ({ query, c }) => {
      const result = await exchange.withdrawals(c.get("auth").userId, query.pageNumber, query.pageSize);
      return c.json(pageView(result, query, (row) => withdrawalView(exchange, row)));
    },
  );

  serve(
    app,
    "/api",
    {
      method: "post",
      path: "/api/withdrawals",
      tag: "Wallet",
      summary: "Withdraw to a chain address",
      description:
        "Debits amount at once; the withdrawal commission is taken from it and amount - fee is sent. min_withdraw and max_withdraw come from the " +
        "currency settings. The withdrawal stays pending until a chain adapter sends it. A repeated clientWithdrawalId returns the first withdrawal " +
        "with 200 and Idempotent-Replay: true, and debits nothing.",
      access: "signed-or-session",
      body: withdrawalBody,
      response: withdrawalSchema,
      status: 201,
      errors: [
        { status: 400, code: "UNKNOWN_CURRENCY", when: "currencyCode is not a currency" },
        { status: 400, code: "WITHDRAWALS_DISABLED", when: "withdrawals of the currency are off" },
        { status: 400, code: "BELOW_MIN_WITHDRAW", when: "amount is below the currency's minimum" },
        { status: 400, code: "ABOVE_MAX_WITHDRAW", when: "amount is above the currency's maximum" },
        { status: 400, code: "AMOUNT_BELOW_FEE", when: "the fee would take the whole amount" },
        { status: 400, code: "INSUFFICIENT_BALANCE", when: "amount is more than the available balance" },
      ],
    },
    async ({ body, c }) => {
      const { withdrawal, replay } = await exchange.withdraw({
        userId: c.get("auth").userId,
        currency: body.currencyCode,
        amount: body.amount,
        address: body.address,
        ...(body.clientWithdrawalId === undefined ? {} : { clientWithdrawalId: body.clientWithdrawalId }),
      });
      if (replay) c.header("Idempotent-Replay", "true");
      return c.json(withdrawalView(exchange, withdrawal), replay ? 200 : 201);
    },
  );

  serve(
    app,
    "/api",
    {
      method: "get",
      path: "/api/currencies/user/commissions",
      tag: "Wallet",
      summary: "The caller's effective commissions (lower tiers replace the defaults they shadow)",
      access: "signed-or-session",
      response: z.array(commissionSchema),
    },
    ({ c }) => c.json(exchange.commissionsOf(c.get("auth").userId).map(commissionView)),
  );

  return app;
}
