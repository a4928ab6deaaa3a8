import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

// The exchange's three secrets: the server key that encrypts API private keys at rest, the admin
// token and the service secret. Production passes them in the environment; a local run without
// them gets generated ones, kept in a file readable by the owner only, so a restart can still
// decrypt the keys it issued.

export interface ExchangeSecrets {
  readonly serverKey: string;
  readonly adminToken: string;
  readonly serviceSecret: string;
  /** Where generated secrets were kept; null when all came from the environment. */
  readonly file: string | null;
}

interface Given {
  readonly EXCHANGE_SERVER_KEY?: string;
  readonly EXCHANGE_ADMIN_TOKEN?: string;
  readonly EXCHANGE_SERVICE_SECRET?: string;
}

export async function resolveSecrets(
  given: Given,
  file: string,
  production = process.env.NODE_ENV === "production",
): Promise<ExchangeSecrets> {
  const {
    EXCHANGE_SERVER_KEY: serverKey,
    EXCHANGE_ADMIN_TOKEN: adminToken,
    EXCHANGE_SERVICE_SECRET: serviceSecret,
  } = given;
  if (serverKey !== undefined && adminToken !== undefined && serviceSecret !== undefined)
    return { serverKey, adminToken, serviceSecret, file: null };
  if (production) {
    throw new Error(
      "Invalid environment: EXCHANGE_SERVER_KEY, EXCHANGE_ADMIN_TOKEN and EXCHANGE_SERVICE_SECRET are required when NODE_ENV=production",
    );
  }
  let stored: Partial<Record<"serverKey" | "adminToken" | "serviceSecret", string>> = {};
  if (existsSync(file)) stored = JSON.parse(await readFile(file, "utf8"));
  // The file keeps generated values only: a secret given in the environment is never written down.
  const kept = {
    serverKey: stored.serverKey ?? randomBytes(32).toString("hex"),
    adminToken: stored.adminToken ?? randomBytes(24).toString("base64url"),
    serviceSecret: stored.serviceSecret ?? randomBytes(24).toString("base64url"),
  };
  if (
    kept.serverKey !== stored.serverKey ||
    kept.adminToken !== stored.adminToken ||
    kept.serviceSecret !== stored.serviceSecret
  ) {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${JSON.stringify(kept, null, 2)}\n`, { mode: 0o600 });
  }
  const secrets = {
    serverKey: serverKey ?? kept.serverKey,
    adminToken: adminToken ?? kept.adminToken,
    serviceSecret: serviceSecret ?? kept.serviceSecret,
  };
  return { ...secrets, file };
}
