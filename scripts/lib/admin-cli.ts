import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { JsonNumber, parseJsonExact } from "../../exchange/core/money/index.ts";
import { isHexAddress } from "../../lib/address.ts";
import { DECIMAL_TEXT } from "../../lib/http/params.ts";

// `npm run admin -- <command>`: the operator's client of a running exchange's /admin endpoints.
// Parsing and dispatch live here, apart from the process entry (scripts/admin.ts), so the
// argument rules are unit-tested and the HTTP side runs against any fetch.

export const USAGE = `Usage: npm run admin -- <command> [options]

Commands:
  create-user --level N [--address 0x...]      create a user (level 0-1000)
  issue-key   --user ID                        issue an API key pair; the private key is shown once
  deposit     --user ID --currency C --amount X [--reference R] [--id DEPOSIT_ID]
                                               credit a deposit (a repeated --id is refused)
  balances    --user ID                        the user and their balances
  ledger                                       per currency: holdings + fees = deposits - withdrawals?

Options:
  --json        print the server's JSON answer as is (balances, ledger)
  -h, --help    this help

Environment:
  EXCHANGE_URL          the exchange (default http://127.0.0.1:8080)
  EXCHANGE_ADMIN_TOKEN  admin bearer token (default: adminToken of .data/exchange-secrets.json,
                        next to EXCHANGE_DATA_DIR, which the exchange writes on first start)`;

export type AdminCommand =
  | { readonly name: "create-user"; readonly level: number; readonly address: string | null }
  | { readonly name: "issue-key"; readonly userId: string }
  | {
      readonly name: "deposit";
      readonly userId: string;
      readonly currency: string;
      readonly amount: string;
      readonly reference: string | null;
      readonly depositId: string | null;
    }
  | { readonly name: "balances"; readonly userId: string }
  | { readonly name: "ledger" };

export type Parsed =
  | { readonly ok: true; readonly command: AdminCommand; readonly json: boolean }
  | { readonly ok: true; readonly help: true }
  | { readonly ok: false; readonly error: string };

const COMMANDS = ["create-user", "issue-key", "deposit", "balances", "ledger"] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CURRENCY = /^[A-Z0-9]{1,16}$/;

/** Which options each command takes, and which of them it requires. */
const OPTIONS: Record<(typeof COMMANDS)[number], { allowed: string[]; required: string[] }> = {
  "create-user": { allowed: ["level", "address"], required: ["level"] },
  "issue-key": { allowed: ["user"], required: ["user"] },
  deposit: { allowed: ["user", "currency", "amount", "reference", "id"], required: ["user", "currency", "amount"] },
  balances: { allowed: ["user"], required: ["user"] },
  ledger: { allowed: [], required: [] },
};

const ARG_OPTIONS = {
  level: { type: "string" },
  address: { type: "string" },
  user: { type: "string" },
  currency: { type: "string" },
  amount: { type: "string" },
  reference: { type: "string" },
  id: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** Parses argv (without node and the script); never throws. */
export function parseAdminArgs(argv: readonly string[]): Parsed {
  let parsed: ReturnType<
    typeof parseArgs<{ args: string[]; allowPositionals: true; strict: true; options: typeof ARG_OPTIONS }>
  >;
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: ARG_OPTIONS });
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
  const { values, positionals } = parsed;
  if (values.help || positionals[0] === "help") return { ok: true, help: true };
  if (positionals.length === 0) return { ok: false, error: "no command given" };
  const [name, ...extra] = positionals;
  if (!(COMMANDS as readonly string[]).includes(name))
    return { ok: false, error: `unknown command "${name}" (one of ${COMMANDS.join(", ")})` };
  if (extra.length > 0) return { ok: false, error: `unexpected argument "${extra[0]}"` };
  const command = name as (typeof COMMANDS)[number];
  const rules = OPTIONS[command];
  const given = Object.entries(values).filter(
    ([key, value]) => value !== undefined && key !== "json" && key !== "help",
  );
  for (const [key] of given)
    if (!rules.allowed.includes(key)) return { ok: false, error: `${command} does not take --${key}` };
  for (const key of rules.required)
    if (values[key as keyof typeof values] === undefined) return { ok: false, error: `${command} needs --${key}` };

  const user = () => {
    const id = values.user!.trim();
    return UUID.test(id)
      ? { ok: true as const, id: id.toLowerCase() }
      : { ok: false as const, error: `--user must be a user id (UUID), got "${values.user}"` };
  };
  const json = values.json === true;
  switch (command) {
    case "create-user": {
      const level = values.level!.trim();
      if (!/^\d{1,4}$/.test(level) || Number(level) > 1000)
        return { ok: false, error: `--level must be an integer from 0 to 1000, got "${values.level}"` };
      const address = values.address?.trim() ?? null;
      if (address !== null && !isHexAddress(address))
        return { ok: false, error: `--address must be a 0x-prefixed 20-byte hex address, got "${values.address}"` };
      return {
        ok: true,
        json,
        command: { name: command, level: Number(level), address: address?.toLowerCase() ?? null },
      };
    }
    case "issue-key":
    case "balances": {
      const id = user();
      return id.ok ? { ok: true, json, command: { name: command, userId: id.id } } : id;
    }
    case "deposit": {
      const id = user();
      if (!id.ok) return id;
      const currency = values.currency!.trim().toUpperCase();
      if (!CURRENCY.test(currency))
        return { ok: false, error: `--currency must be a currency code such as USDT, got "${values.currency}"` };
      const amount = values.amount!.trim();
      if (!DECIMAL_TEXT.test(amount))
        return {
          ok: false,
          error: `--amount must be a plain decimal such as 100 or 0.5 (no sign, no exponent), got "${values.amount}"`,
        };
      if (!/[1-9]/.test(amount)) return { ok: false, error: "--amount must be more than zero" };
      const reference = values.reference ?? null;
      if (reference !== null && reference.length > 200)
        return { ok: false, error: "--reference must be at most 200 characters" };
      const depositId = values.id ?? null;
      if (depositId !== null && (depositId.length === 0 || depositId.length > 100))
        return { ok: false, error: "--id must be 1 to 100 characters" };
      return { ok: true, json, command: { name: command, userId: id.id, currency, amount, reference, depositId } };
    }
    case "ledger":
      return { ok: true, json, command: { name: command } };
  }
}

export interface AdminRequest {
  readonly method: "GET" | "POST";
  readonly path: string;
  /** Sent as JSON; decimals as strings (exact). */
  readonly body?: Record<string, unknown>;
}

export function adminRequest(command: AdminCommand): AdminRequest {
  switch (command.name) {
    case "create-user":
      return { method: "POST", path: "/admin/users", body: { level: command.level, address: command.address } };
    case "issue-key":
      return { method: "POST", path: `/admin/users/${command.userId}/keys` };
    case "deposit":
      return {
        method: "POST",
        path: "/admin/deposits",
        body: {
          userId: command.userId,
          currencyCode: command.currency,
          amount: command.amount,
          ...(command.reference === null ? {} : { reference: command.reference }),
          ...(command.depositId === null ? {} : { depositId: command.depositId }),
        },
      };
    case "balances":
      return { method: "GET", path: `/admin/users/${command.userId}` };
    case "ledger":
      return { method: "GET", path: "/admin/ledger" };
  }
}

/** EXCHANGE_ADMIN_TOKEN, else adminToken of <dirname(EXCHANGE_DATA_DIR)>/exchange-secrets.json. */
export async function resolveAdminToken(
  env: { EXCHANGE_ADMIN_TOKEN?: string; EXCHANGE_DATA_DIR: string },
  read: (file: string) => Promise<string> = (file) => readFile(file, "utf8"),
): Promise<string> {
  if (env.EXCHANGE_ADMIN_TOKEN !== undefined) return env.EXCHANGE_ADMIN_TOKEN;
  const file = join(dirname(env.EXCHANGE_DATA_DIR), "exchange-secrets.json");
  let text: string;
  try {
    text = await read(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new Error(`no admin token: set EXCHANGE_ADMIN_TOKEN, or start the exchange once so it writes ${file}`);
    }
    throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
  let token: unknown;
  try {
    token = (JSON.parse(text) as { adminToken?: unknown }).adminToken;
  } catch {
    throw new Error(`${file} is not JSON`);
  }
  if (typeof token !== "string" || token === "") throw new Error(`${file} has no adminToken; set EXCHANGE_ADMIN_TOKEN`);
  return token;
}

export interface AdminDeps {
  readonly url: string;
  readonly token: () => Promise<string>;
  readonly fetch?: typeof fetch;
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

/** Runs one command; returns the process exit code (0 done, 1 failed, 2 bad usage). */
export async function runAdmin(argv: readonly string[], deps: AdminDeps): Promise<number> {
  const parsed = parseAdminArgs(argv);
  if (!parsed.ok) {
    deps.err(`admin: ${parsed.error}\n\n${USAGE}`);
    return 2;
  }
  if ("help" in parsed) {
    deps.out(USAGE);
    return 0;
  }
  const { command, json } = parsed;
  let token: string;
  try {
    token = await deps.token();
  } catch (error) {
    deps.err(`admin: ${(error as Error).message}`);
    return 1;
  }
  const request = adminRequest(command);
  const base = deps.url.replace(/\/+$/, "");
  let response: Response;
  try {
    response = await (deps.fetch ?? fetch)(`${base}${request.path}`, {
      method: request.method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(request.body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      signal: AbortSignal.timeout(15_000),
    });
  } catch (error) {
    const cause = (error as Error).cause as Error | undefined;
    deps.err(
      `admin: cannot reach the exchange at ${base} (${cause?.message ?? (error as Error).message}); is it running? (npm start, or npm run exchange)`,
    );
    return 1;
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = text === "" ? undefined : parseJsonExact(text);
  } catch {
    // not JSON: shown as text below
  }
  if (!response.ok) {
    const error = body as { code?: unknown; message?: unknown } | undefined;
    if (typeof error?.code === "string" && typeof error.message === "string")
      deps.err(`${error.code}: ${error.message}`);
    else deps.err(`HTTP ${response.status}: ${text.slice(0, 500) || response.statusText}`);
    if (response.status === 401)
      deps.err(
        "(the admin token was refused: check EXCHANGE_ADMIN_TOKEN, or the secrets file next to EXCHANGE_DATA_DIR)",
      );
    return 1;
  }
  return render(command, body, json, deps);
}

/** JSON with every number written exactly as the server sent it. */
export function exactJson(value: unknown, indent?: number): string {
  return JSON.stringify(
    value,
    (_key, item) =>
      item instanceof JsonNumber ? (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON(item.text) : item,
    indent,
  );
}

const text = (value: unknown): string =>
  value instanceof JsonNumber ? value.text : value === null || value === undefined ? "-" : String(value);

function table(rows: string[][]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column])))
        .join("  "),
    )
    .join("\n");
}

function render(command: AdminCommand, body: unknown, json: boolean, deps: AdminDeps): number {
  const record = body as Record<string, unknown>;
  switch (command.name) {
    case "issue-key":
      // The one time the private key is shown: a single JSON line, easy to save.
      deps.out(exactJson({ userId: command.userId, publicKey: record.publicKey, privateKey: record.privateKey }));
      deps.err("admin: the private key is shown only this once; keep it safe.");
      return 0;
    case "create-user":
    case "deposit":
      deps.out(exactJson(body, 2));
      return 0;
    case "balances": {
      if (json) {
        deps.out(exactJson(body, 2));
        return 0;
      }
      const balances = (record.balances ?? []) as Record<string, unknown>[];
      deps.out(`user ${text(record.id)}  level ${text(record.level)}  address ${text(record.address)}`);
      deps.out(
        table([
          ["currency", "available", "locked", "total"],
          ...balances.map((row) => [text(row.currencyCode), text(row.available), text(row.locked), text(row.total)]),
        ]),
      );
      return 0;
    }
    case "ledger": {
      const rows = (body ?? []) as Record<string, unknown>[];
      const unbalanced = rows.filter((row) => row.balanced !== true).map((row) => text(row.currencyCode));
      if (json) deps.out(exactJson(body, 2));
      else {
        deps.out(
          table([
            ["currency", "deposited", "withdrawn", "available", "locked", "fees", "balanced"],
            ...rows.map((row) => [
              text(row.currencyCode),
              text(row.deposited),
              text(row.withdrawn),
              text(row.available),
              text(row.locked),
              text(row.fees),
              row.balanced === true ? "yes" : "NO",
            ]),
          ]),
        );
      }
      if (unbalanced.length > 0) {
        deps.err(`admin: the ledger does not balance for ${unbalanced.join(", ")}`);
        return 1;
      }
      return 0;
    }
  }
}
