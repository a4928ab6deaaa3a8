import { readFile } from "node:fs/promises";

// The demo users' API keys as EXCHANGE_DEMO writes them (.data/demo-credentials.json): a JSON
// array the market-making bot and people trying the API read. Kept free of the exchange's
// storage so a client process can import it.

export interface DemoCredential {
  readonly userId: string;
  readonly level: number;
  /** Lower-case 0x address, or null. */
  readonly address: string | null;
  readonly publicKey: string;
  readonly privateKey: string;
  /** trader-1, trader-2, market-maker, market-taker. */
  readonly label: string;
}

/** Validates the file's content; throws an Error naming the first problem. */
export function parseDemoCredentials(text: string): DemoCredential[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new Error(`not JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(data)) throw new Error("expected a JSON array of credentials");
  return data.map((entry: unknown, index) => {
    const row = entry as Record<string, unknown> | null;
    const text = (name: string) => {
      const value = row?.[name];
      if (typeof value !== "string" || value === "")
        throw new Error(`entry ${index}: ${name} must be a non-empty string`);
      return value;
    };
    const level = row?.level;
    if (typeof level !== "number" || !Number.isInteger(level))
      throw new Error(`entry ${index}: level must be an integer`);
    const address = row?.address ?? null;
    if (address !== null && typeof address !== "string")
      throw new Error(`entry ${index}: address must be a string or null`);
    return {
      userId: text("userId"),
      level,
      address,
      publicKey: text("publicKey"),
      privateKey: text("privateKey"),
      label: text("label"),
    };
  });
}

/** Reads and validates the file; undefined when it does not exist. */
export async function readDemoCredentials(file: string): Promise<DemoCredential[] | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    return parseDemoCredentials(text);
  } catch (error) {
    throw new Error(`${file}: ${(error as Error).message}`);
  }
}
