import { chmod, mkdir, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { DomainError, type Exchange } from "../application/index.ts";
import { readDemoCredentials, type DemoCredential } from "./credentials.ts";

// The demo market's users (EXCHANGE_DEMO=true): two traders for people trying the API, the
// market maker and taker the bot (exchange/bot) trades with, and two users for the ecosystem's
// signed writes (a voter holding no agent tokens, and a low-level newcomer). Each gets one API key and a large
// deposit in every currency, also in each agent token listed after it was created
// (creditDemoDeposits); their keys go to a file readable by the owner only, which later starts
// keep as long as the exchange still knows every user and key in it.

export const DEFAULT_DEMO_CREDENTIALS_FILE = ".data/demo-credentials.json";

export interface DemoUserSpec {
  readonly label: string;
  readonly level: number;
  readonly address: string | null;
  /** The market maker quotes every pair, so it gets ten times a trader's deposits. */
  readonly role: "trader" | "market-maker";
}

export const DEMO_USERS: readonly DemoUserSpec[] = [
  // Hardhat's default accounts #4 and #5, so the same people exist on the chain.
  { label: "trader-1", level: 20, address: "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65".toLowerCase(), role: "trader" },
  { label: "trader-2", level: 25, address: "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc".toLowerCase(), role: "trader" },
  { label: "market-maker", level: 50, address: null, role: "market-maker" },
  { label: "market-taker", level: 20, address: null, role: "trader" },
  // Hardhat's default accounts #13 and #14, for the ecosystem's signed writes (vote, spawn): they
  // hold ETH on the exchange to pay spawn fees from (fee holds) like every trader.
  {
    label: "voter-no-tokens",
    level: 20,
    address: "0x1CBd3b2770909D4e10f157cABC84C7264073C9Ec".toLowerCase(),
    role: "trader",
  },
  { label: "newcomer", level: 5, address: "0xdF3e18d64BC6A983f673Ab319CCaE4f1a57C7097".toLowerCase(), role: "trader" },
];

/** A trader's deposit per demo currency (whole coins, worth roughly 100k-300k USDT each). */
const TRADER_DEPOSITS: Readonly<Record<string, string>> = {
  USDT: "250000",
  ETH: "100",
  ALPHA: "500000",
  BETA: "1000000",
  GAMMA: "1000000",
};
/** Currencies the demo data does not know get this many whole coins. */
const DEFAULT_TRADER_DEPOSIT = "100000";

/** The deposit a demo user gets in `currency`: decimal text, exact at any number of decimals. */
export function demoDepositAmount(currency: string, role: DemoUserSpec["role"]): string {
  const amount = TRADER_DEPOSITS[currency] ?? DEFAULT_TRADER_DEPOSIT;
  return role === "market-maker" ? `${amount}0` : amount;
}

export interface EnsureDemoUsersResult {
  readonly file: string;
  readonly credentials: DemoCredential[];
  /** Labels created by this call; empty when the file was kept as it was. */
  readonly created: string[];
}

/**
 * Keeps `file` when every user and key in it is known to the exchange and every demo label is
 * there; adds the missing labels when only some are; otherwise (a new or reset database)
 * creates all demo users afresh and rewrites the file.
 */
export async function ensureDemoUsers(
  exchange: Exchange,
  file: string = DEFAULT_DEMO_CREDENTIALS_FILE,
  users: readonly DemoUserSpec[] = DEMO_USERS,
): Promise<EnsureDemoUsersResult> {
  let existing: DemoCredential[] = [];
  try {
    existing = (await readDemoCredentials(file)) ?? [];
  } catch (error) {
    console.warn(`exchange: ignoring unreadable demo credentials, creating new ones (${(error as Error).message})`);
  }
  const known = (entry: DemoCredential) => {
    if (exchange.user(entry.userId) === undefined) return false;
    const key = exchange.resolveKey(entry.publicKey);
    return key !== undefined && key.userId === entry.userId && key.privateKey === entry.privateKey;
  };
  const kept = existing.every(known) ? existing : [];
  const missing = users.filter((spec) => !kept.some((entry) => entry.label === spec.label));
  if (missing.length === 0) return { file, credentials: kept, created: [] };

  const credentials = [...kept];
  for (const spec of missing) credentials.push(await createDemoUser(exchange, spec));
  await writeCredentials(file, credentials);
  return { file, credentials, created: missing.map((spec) => spec.label) };
}

async function createDemoUser(exchange: Exchange, spec: DemoUserSpec): Promise<DemoCredential> {
  const user = await exchange.createUser(spec.level, spec.address);
  const key = await exchange.issueApiKey(user.id);
  for (const currency of exchange.reference.currencies.values()) {
    if (!currency.row.canDeposit) continue;
    await exchange.deposit({
      userId: user.id,
      currency: currency.row.code,
      amount: demoDepositAmount(currency.row.code, spec.role),
      reference: `demo ${spec.label}`,
      depositId: `demo-${user.id}-${currency.row.code}`,
    });
  }
  return {
    userId: user.id,
    level: user.level,
    address: user.address,
    publicKey: key.publicKey,
    privateKey: key.privateKey,
    label: spec.label,
  };
}

/**
 * Gives each demo user its deposit in `currencies` (default: every currency that takes deposits)
 * unless it has it: the agent tokens are listed after the users exist (from the chain, as the
 * ecosystem API indexes them). Idempotent: one deposit id per user and currency, the one
 * createDemoUser uses. Returns what it credited, as "label CODE".
 */
export async function creditDemoDeposits(
  exchange: Exchange,
  credentials: readonly DemoCredential[],
  currencies?: readonly string[],
  users: readonly DemoUserSpec[] = DEMO_USERS,
): Promise<string[]> {
  const credited: string[] = [];
  const codes = currencies ?? [...exchange.reference.currencies.keys()];
  for (const entry of credentials) {
    const spec = users.find((user) => user.label === entry.label);
    if (spec === undefined || exchange.user(entry.userId) === undefined) continue;
    for (const code of codes) {
      if (exchange.reference.currencies.get(code)?.row.canDeposit !== true) continue;
      try {
        await exchange.deposit({
          userId: entry.userId,
          currency: code,
          amount: demoDepositAmount(code, spec.role),
          reference: `demo ${spec.label}`,
          depositId: `demo-${entry.userId}-${code}`,
        });
        credited.push(`${entry.label} ${code}`);
      } catch (error) {
        if (!(error instanceof DomainError && error.code === "DUPLICATE_DEPOSIT")) throw error;
      }
    }
  }
  return credited;
}

/** Written whole under a temporary name, then renamed, so a reader never sees half a file. */
async function writeCredentials(file: string, credentials: readonly DemoCredential[]): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, file);
}
