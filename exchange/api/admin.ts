import { Hono } from "hono";
import { z } from "zod";
import { notFound, parseInput } from "../../lib/http/index.ts";
import { formatCurrencyUnits } from "../core/money/index.ts";
import type { Exchange } from "../application/index.ts";
import { parseBody } from "./body.ts";
import { decimalText, jsonInteger, storedText } from "./schemas.ts";
import { balanceViews, depositView } from "./views.ts";

// Operator endpoints behind the admin token; `npm run admin` is their client. They live on the
// server (not in the CLI) because the server holds the ledger in memory and, on PGlite, the
// only open handle to the database.

const createUserBody = z.strictObject({
  level: jsonInteger(0, 1000),
  address: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte hex address")
    .nullable()
    .optional(),
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

export function adminApi(exchange: Exchange) {
  const app = new Hono();

  app.post("/users", async (c) => {
    const body = parseBody(createUserBody, await c.req.text());
    const user = await exchange.createUser(body.level, body.address ?? null);
    return c.json(user, 201);
  });

  app.get("/users/:id", (c) => {
    const { id } = parseInput(userParam, c.req.param());
    const user = exchange.user(id);
    if (user === undefined) throw notFound(`Unknown user ${id}`);
    return c.json({ ...user, balances: balanceViews(exchange, id) });
  });

  app.post("/users/:id/keys", async (c) => {
    const { id } = parseInput(userParam, c.req.param());
    return c.json(await exchange.issueApiKey(id), 201);
  });

  app.post("/deposits", async (c) => {
    const body = parseBody(depositBody, await c.req.text());
    const row = await exchange.deposit({
      userId: body.userId,
      currency: body.currencyCode,
      amount: body.amount,
      reference: body.reference ?? "admin",
      ...(body.depositId === undefined ? {} : { depositId: body.depositId }),
    });
    return c.json(depositView(exchange, row), 201);
  });

  app.get("/ledger", async (c) => {
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
          deposited: text(row.deposited),
          withdrawn: text(row.withdrawn),
          balanced: row.balanced,
        };
      }),
    );
  });

  return app;
}
