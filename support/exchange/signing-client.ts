/**
 * The one signing HTTP client of tests and benchmarks, for the exchange and for the ecosystem
 * API's signed writes: admin calls (with the exchange's admin token) and signed calls. Answers
 * come back whatever their status, so tests can assert on refusals. (The ecosystem API's own
 * client of the exchange, api/writes/exchange-client.ts, is a different thing: fee holds.)
 */
import { signRequest } from "../../exchange/adapters/auth/index.ts";

export interface Credentials {
  readonly userId: string;
  readonly publicKey: string;
  readonly privateKey: string;
}

/** What a signed call needs of a user: the key pair. */
export type SigningKey = Pick<Credentials, "publicKey" | "privateKey">;

export interface Answer<T = any> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
  readonly text: string;
}

/** A response as tests read it: its status and headers, the text, and the body parsed when it is JSON. */
export async function readAnswer<T>(response: Response): Promise<Answer<T>> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: body as T, text };
}

export interface SigningClientOptions {
  /** Every request's deadline; none by default (the suites bound their own waits). */
  readonly timeoutMs?: number;
}

export class SigningClient {
  readonly base: string;
  private readonly adminToken: string;
  private readonly timeoutMs: number | undefined;

  /** `adminToken` only for admin calls (and `user`); signed calls need none. */
  constructor(base: string, adminToken = "", options: SigningClientOptions = {}) {
    this.base = base;
    this.adminToken = adminToken;
    this.timeoutMs = options.timeoutMs;
  }

  private deadline(): { signal?: AbortSignal } {
    return this.timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(this.timeoutMs) };
  }

  async admin<T = any>(method: string, path: string, body?: unknown): Promise<Answer<T>> {
    const response = await fetch(`${this.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.adminToken}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      ...this.deadline(),
    });
    return readAnswer<T>(response);
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

  /**
   * The URL, body text and headers of a signed request, not sent (a test can send the same bytes
   * again); `body` is signed exactly as given (a string) so tests can sign odd bytes, and no
   * `timestamp` means no API-Timestamp header.
   */
  signedRequest(
    who: SigningKey,
    method: string,
    path: string,
    body?: string | object,
    timestamp?: number,
  ): { url: string; body: string; headers: Record<string, string> } {
    const url = `${this.base}${path}`;
    const text = body === undefined ? "" : typeof body === "string" ? body : JSON.stringify(body);
    const headers: Record<string, string> = {
      ...signRequest({
        publicKey: who.publicKey,
        privateKey: who.privateKey,
        method,
        url,
        body: text,
        ...(timestamp === undefined ? {} : { timestamp }),
      }),
      ...(text === "" ? {} : { "content-type": "application/json" }),
    };
    return { url, body: text, headers };
  }

  /** A signed request, sent; `tamper` may change its headers and `sendBody` the bytes sent. */
  async signed<T = any>(
    who: SigningKey,
    method: string,
    path: string,
    body?: string | object,
    options: { timestamp?: number; tamper?: (headers: Record<string, string>) => void; sendBody?: string } = {},
  ): Promise<Answer<T>> {
    const { url, body: text, headers } = this.signedRequest(who, method, path, body, options.timestamp);
    options.tamper?.(headers);
    const sent = options.sendBody ?? text;
    const response = await fetch(url, {
      method,
      headers,
      ...(sent === "" ? {} : { body: sent }),
      ...this.deadline(),
    });
    return readAnswer<T>(response);
  }
}
