import { z } from "zod";
import { addressText, notFound, OpenAPIHono } from "../../../lib/http/index.ts";
import { formatCurrencyUnits } from "../../core/money/index.ts";
import type { Exchange } from "../../application/index.ts";
import type { ChainGateway } from "../chain/index.ts";
import { UnavailableError } from "../../../lib/unavailable.ts";
import { decimalText, jsonInteger, storedText } from "./schemas.ts";
import { serve } from "./serve.ts";
import { balanceViews } from "./views.ts";
import { creditedDepositView } from "./deposits.ts";
import { adminWithdrawalRoutes } from "./admin-withdrawals.ts";
import { notJoinedToChain } from "./domain-errors.ts";
import { balanceSchema, depositSchema } from "./wallet.ts";

// Operator endpoints behind the admin token; `npm run admin` is their client. They live on the
// server (not in the CLI) because the server holds the ledger in memory and, on PGlite, the
// only open handle to the database.

const createUserBody = z.strictObject({
  level: jsonInteger(0, 1000),
  address: addressText.nullable().optional(),
});

const depositBody = z.strictObject({
  userId: z.uuid(),
  currencyCode: z.string().regex(/^[A-Z0-9]{1,16}$/),
  amount: decimalText,
  reference: storedText(200).nullable().optional(),
  depositId: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,100}$/, "must be 1 to 100 of A-Z a-z 0-9 _ . : -")
    .optional(),
});

const userParam = z.object({ id: z.uuid("must be a user id (UUID)") });

const userSchema = z.object({
  id: z.uuid(),
  level: z.number().int(),
  address: z.string().nullable(),
  createdAt: z.number().int().meta({ description: "Epoch milliseconds" }),
});
const unknownUser = { status: 404, code: "NOT_FOUND", when: "no user has this id" };

/** Declarations shared by every admin route: operator-only, outside the per-client rate limit. */
const admin = { tag: "Admin", access: "admin", unlimited: true } as const;

export function adminApi(exchange: Exchange, gateway?: ChainGateway) {
  const app = new OpenAPIHono();

  serve(
    app,
    "/admin",
    {
      ...admin,
      method: "post",
      path: "/admin/users",
      summary: "Create a user",
      body: createUserBody,
      response: userSchema,
      status: 201,
    },
    async ({ body, c }) => {
      const user = await exchange.createUser(body.level, body.address ?? null);
      return c.json(user, 201);
    },
  );

  serve(
    app,
    "/admin",
    {
      ...admin,
      method: "get",
      path: "/admin/users/{id}",
      summary: "A user and their balances",
      params: userParam,
      response: userSchema.extend({ balances: z.array(balanceSchema) }),
      errors: [unknownUser],
    },
    ({ params, c }) => {
      const { id } = params;
      const user = exchange.user(id);
      if (user === undefined) throw notFound(`Unknown user ${id}`);
      return c.json({ ...user, balances: balanceViews(exchange, id) });
    },
  );

  serve(
    app,
    "/admin",
    {
      ...admin,
      method: "post",
      path: "/admin/users/{id}/keys",
      summary: "Issue an API key pair to a user (the private key is shown once)",
      params: userParam,
      response: z.object({ publicKey: z.string(), privateKey: z.string() }),
      status: 201,
      errors: [unknownUser],
    },
    async ({ params, c }) => c.json(await exchange.issueApiKey(params.id), 201),
  );

  serve(
    app,
    "/admin",
    {
      ...admin,
      method: "post",
      path: "/admin/deposits",
      summary: "Credit a deposit (a repeated depositId credits once)",
      body: depositBody,
      response: depositSchema,
      status: 201,
    },
    async ({ body, c }) => {
      const row = await exchange.deposit({
        userId: body.userId,
        currency: body.currencyCode,
        amount: body.amount,
        reference: body.reference ?? "admin",
        ...(body.depositId === undefined ? {} : { depositId: body.depositId }),
      });
      return c.json(creditedDepositView(exchange, undefined, row), 201);
    },
  );

  serve(
    app,
    "/admin",
    {
      ...admin,
      method: "get",
      path: "/admin/ledger",
      summary:
        "Reconciliation: per currency, the ledger's totals and whether they balance (available + locked + fees + burned = deposited - withdrawn)",
      response: z.array(
        z.object({
          currencyCode: z.string(),
          available: z.string(),
          locked: z.string(),
          fees: z.string(),
          burned: z.string().meta({ description: "Settled fee holds: burned on-chain, out of the exchange" }),
          deposited: z.string(),
          withdrawn: z.string(),
          balanced: z.boolean(),
        }),
      ),
    },
    async ({ c }) => {
      const rows = await exchange.reconcile();
      return c.json(
        rows.map((row) => {
          const spec = exchange.reference.currency(row.currency).spec;
          const text = (units: bigint) => formatCurrencyUnits(units, spec);
          return {
            currencyCode: row.currency,
            available: text(row.available),
            locked: text(row.locked),
            fees: text(row.fees),
            burned: text(row.burned),
            deposited: text(row.deposited),
            withdrawn: text(row.withdrawn),
            balanced: row.balanced,
          };
        }),
      );
    },
  );

  serve(
    app,
    "/admin",
    {
      ...admin,
      method: "get",
      path: "/admin/reserves",
      summary: "Solvency, measured: per currency, what users are owed against what the exchange holds on-chain now",
      description:
        "owed = users' available + locked; onChain = the hot wallet's balance + every deposit address's (the native coin counts its wrapped " +
        "token too); surplus = onChain - owed - fees. A negative surplus means the exchange cannot pay every user out. See exchange/README.md.",
      response: z.object({
        chainId: z.number().int(),
        blockNumber: z.number().int().nullable().meta({ description: "The chain head the deposit watcher last read" }),
        currencies: z.array(
          z.object({
            currencyCode: z.string(),
            owed: z.string(),
            fees: z.string(),
            hotWallet: z.string(),
            depositAddresses: z.string(),
            onChain: z.string(),
            surplus: z.string(),
            covered: z.boolean().meta({ description: "onChain >= owed" }),
          }),
        ),
      }),
      errors: [{ status: 503, code: "UNAVAILABLE", when: "not joined to a chain, or the chain node does not answer" }],
    },
    async ({ c }) => {
      if (gateway === undefined) throw notJoinedToChain();
      const rows = await gateway.reserves().catch((error: unknown) => {
        throw new UnavailableError("chain node", `the chain node did not answer: ${String(error).split("\n")[0]}`, {
          cause: error,
          connectionLost: false,
        });
      });
      return c.json({
        chainId: gateway.chainId,
        blockNumber: gateway.watcherStatus().chainHead ?? null,
        currencies: rows.map((row) => {
          const spec = exchange.reference.currency(row.currency).spec;
          const text = (units: bigint) =>
            units < 0n ? `-${formatCurrencyUnits(-units, spec)}` : formatCurrencyUnits(units, spec);
          return {
            currencyCode: row.currency,
            owed: text(row.owed),
            fees: text(row.fees),
            hotWallet: text(row.hotWallet),
            depositAddresses: text(row.depositAddresses),
            onChain: text(row.onChain),
            surplus: text(row.surplus),
            covered: row.onChain >= row.owed,
          };
        }),
      });
    },
  );

  adminWithdrawalRoutes(app, exchange);
  return app;
}
