/** A small HTTP client of the exchange for tests: admin calls and signed calls. */
import { signRequest } from "../../../exchange/adapters/auth/index.ts";

export interface Credentials {
  readonly userId: string;
  readonly publicKey: string;
  readonly privateKey: string;
}

export interface Answer<T = any> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
  readonly text: string;
}

async function answer<T>(response: Response): Promise<Answer<T>> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: body as T, text };
}

export class ExchangeClient {
  readonly base: string;
  private readonly adminToken: string;

  constructor(base: string, adminToken: string) {
    this.base = base;
    this.adminToken = adminToken;
  }

  async admin<T = any>(method: string, path: string, body?: unknown): Promise<Answer<T>> {
    const response = await fetch(`${this.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.adminToken}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return answer<T>(response);
  }

  /** Creates a user with a key pair and credits `deposits` ({currency: amount}). */
  async user(
    level: number,
    deposits: Record<string, string> = {},
    address: string | null = null,
  ): Promise<Credentials> {
    const user = await this.admin("POST", "/admin/users", { level, address });
    if (user.status !== 201) throw new Error(`create user: ${user.status} ${user.text}`);
    const keys = await this.admin("POST", `/admin/users/${user.body.id}/keys`);
    if (keys.status !== 201) throw new Error(`issue key: ${keys.status} ${keys.text}`);
    for (const [currencyCode, amount] of Object.entries(deposits)) {
      const deposit = await this.admin("POST", "/admin/deposits", { userId: user.body.id, currencyCode, amount });
      if (deposit.status !== 201) throw new Error(`deposit: ${deposit.status} ${deposit.text}`);
    }
    return { userId: user.body.id, publicKey: keys.body.publicKey, privateKey: keys.body.privateKey };
  }

  /** A signed request; `body` is sent exactly as given (a string) so tests can sign odd bytes. */
  async signed<T = any>(
    who: Credentials,
    method: string,
    path: string,
    body?: string | object,
    options: { timestamp?: number; tamper?: (headers: Record<string, string>) => void; sendBody?: string } = {},
  ): Promise<Answer<T>> {
    const url = `${this.base}${path}`;
    const text = body === undefined ? "" : typeof body === "string" ? body : JSON.stringify(body);
    const headers: Record<string, string> = {
      ...signRequest({
        publicKey: who.publicKey,
        privateKey: who.privateKey,
        method,
        url,
        body: text,
        ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }),
      }),
      ...(text === "" ? {} : { "content-type": "application/json" }),
    };
    options.tamper?.(headers);
    const sent = options.sendBody ?? text;
    const response = await fetch(url, { method, headers, ...(sent === "" ? {} : { body: sent }) });
    return answer<T>(response);
  }
}
