import { z } from "zod";
import type { OpenAPIHono } from "../../../lib/http/index.ts";
import type { Exchange } from "../../application/index.ts";
import { storedText } from "./schemas.ts";
import { notJoinedToChain } from "./domain-errors.ts";
import { serve } from "./serve.ts";
import { withdrawalView } from "./views.ts";
import { withdrawalSchema } from "./wallet.ts";

// The operator's side of withdrawals: the list by status (those waiting for approval first of
// all), and the approval or rejection of one above its currency's approval threshold.

const admin = { tag: "Admin", access: "admin", unlimited: true } as const;
const idParam = z.object({ id: z.uuid("must be a withdrawal id (UUID)") });
const adminWithdrawalSchema = withdrawalSchema.extend({ userId: z.uuid() });
const unknownWithdrawal = { status: 404, code: "NOT_FOUND", when: "no withdrawal has this id" };
const notWaiting = {
  status: 409,
  code: "WITHDRAWAL_NOT_PENDING",
  when: "the withdrawal is not pending with approvalRequired and unapproved",
};
const STATUSES = ["pending", "sent", "completed", "failed"] as const;

export function adminWithdrawalRoutes(app: OpenAPIHono, exchange: Exchange): void {
  const view = (row: Parameters<typeof withdrawalView>[1]) => ({
    ...withdrawalView(exchange, row),
    userId: row.userId,
  });

  serve(
    app,
    "/admin",
    {
      ...admin,
      method: "get",
      path: "/admin/withdrawals",
      summary: "Withdrawals by status, oldest first (awaiting=true: only those waiting for an operator's approval)",
      query: z.object({
        status: z.enum(STATUSES).optional(),
        awaiting: z.enum(["true", "false"]).optional(),
        limit: z.coerce.number().int().min(1).max(1000).default(100),
      }),
      response: z.array(adminWithdrawalSchema),
    },
    async ({ query, c }) => {
      const awaiting = query.awaiting === "true";
      const statuses = awaiting ? (["pending"] as const) : query.status ? [query.status] : STATUSES;
      // Waiting ones are a filter over pending ones: read a wider page so `limit` of them can show.
      const rows = await exchange.withdrawalsByStatus(statuses, awaiting ? 10_000 : query.limit);
      const shown = awaiting ? rows.filter((row) => row.approvalRequired && row.approvedAt === null) : rows;
      return c.json(shown.slice(0, query.limit).map(view));
    },
  );

  serve(
    app,
    "/admin",
    {
      ...admin,
      method: "post",
      path: "/admin/withdrawals/{id}/approve",
      summary: "Approve a withdrawal waiting for approval: the hot wallet sends it",
      params: idParam,
      response: adminWithdrawalSchema,
      errors: [unknownWithdrawal, notWaiting],
    },
    async ({ params, c }) => c.json(view(await exchange.approveWithdrawal(params.id))),
  );

  serve(
    app,
    "/admin",
    {
      ...admin,
      method: "post",
      path: "/admin/withdrawals/{id}/reject",
      summary:
        "Reject a withdrawal waiting for approval (body {} or {reason}): failed, amount and fee returned to available",
      params: idParam,
      body: z.strictObject({ reason: storedText(200).nullable().optional() }),
      response: adminWithdrawalSchema,
      errors: [unknownWithdrawal, notWaiting],
    },
    async ({ params, body, c }) => c.json(view(await exchange.rejectWithdrawal(params.id, body.reason ?? null))),
  );

  // The kill switch custodians keep for incidents: paused, requests are still taken (debited,
  // pending, with a waiting reason) and nothing is sent until the operator resumes.
  const sendingSchema = z.object({
    paused: z.boolean().meta({ description: "true: the hot wallet sends no withdrawal; requests wait pending" }),
  });
  const noSender = {
    status: 503,
    code: "UNAVAILABLE",
    when: "not joined to a chain (CHAIN_GATEWAY): nothing sends withdrawals",
  };
  const sendingSwitch = () => {
    const found = exchange.withdrawalSending();
    if (found === undefined) throw notJoinedToChain("nothing sends withdrawals");
    return found;
  };
  serve(
    app,
    "/admin",
    {
      ...admin,
      method: "get",
      path: "/admin/withdrawal-sending",
      summary: "Whether the hot wallet sends withdrawals or is paused by the operator",
      response: sendingSchema,
      errors: [noSender],
    },
    async ({ c }) => c.json({ paused: sendingSwitch().paused }),
  );
  serve(
    app,
    "/admin",
    {
      ...admin,
      method: "post",
      path: "/admin/withdrawal-sending",
      summary:
        "Pause ({paused:true}) or resume ({paused:false}) the sending of withdrawals; paused, requests wait pending, ones already sent complete. Lasts until a restart, which takes WITHDRAWALS_PAUSED",
      body: z.strictObject({ paused: z.boolean({ error: "must be true or false" }) }),
      response: sendingSchema,
      errors: [noSender],
    },
    async ({ body, c }) => {
      const sending = sendingSwitch();
      if (body.paused) sending.pause();
      else sending.resume();
      return c.json({ paused: sending.paused });
    },
  );
}
