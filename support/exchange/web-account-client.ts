import assert from "node:assert/strict";
import type { PrivateKeyAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";

/** The web app's origin the test exchanges allow (WEB_ORIGIN). */
export const TEST_WEB_ORIGIN = "http://127.0.0.1:3000";

export interface WebCallInit {
  readonly cookie?: string;
  readonly csrf?: string;
  readonly body?: unknown;
  /** The Origin header; null sends none. */
  readonly origin?: string | null;
  readonly contentType?: string;
}

export interface WebSession {
  readonly cookie: string;
  readonly csrf: string;
  /** The sign-in's answer: the account (userId, address, level, csrfToken). */
  readonly account: Record<string, unknown> & { userId: string };
}

/**
 * What the web app does against an exchange over real HTTP: calls with its Origin, the session
 * cookie and the CSRF header, and Sign in with Ethereum (EIP-4361) with a server nonce. `baseUrl`
 * is read at each call (a test may restart its exchange on another port).
 */
export function webAccountClient(baseUrl: () => string, origin = TEST_WEB_ORIGIN) {
  const call = async (method: string, path: string, init: WebCallInit = {}) => {
    const headers: Record<string, string> = init.origin === null ? {} : { Origin: init.origin ?? origin };
    if (init.cookie) headers.cookie = init.cookie;
    if (init.csrf) headers["x-csrf-token"] = init.csrf;
    if (init.body !== undefined) headers["content-type"] = init.contentType ?? "application/json";
    const response = await fetch(`${baseUrl()}${path}`, {
      method,
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as any) : null };
  };

  /** A sign-in message for `signer` with a fresh server nonce, signed; `fields` override the message's. */
  const signedMessage = async (
    signer: PrivateKeyAccount,
    fields: Partial<Parameters<typeof createSiweMessage>[0]> = {},
  ): Promise<{ message: string; signature: string }> => {
    const { body } = await call("GET", "/api/auth/nonce");
    const message = createSiweMessage({
      address: signer.address,
      domain: new URL(origin).host,
      uri: `${origin}/account`,
      version: "1",
      chainId: 31337,
      nonce: body.nonce,
      issuedAt: new Date(),
      statement: "Sign in to the exchange.",
      ...fields,
    });
    return { message, signature: await signer.signMessage({ message }) };
  };

  /** Signs in as `signer`: the session's cookie (httpOnly, SameSite=Strict, checked) and CSRF token. */
  const signIn = async (signer: PrivateKeyAccount): Promise<WebSession> => {
    const answer = await call("POST", "/api/auth/session", { body: await signedMessage(signer) });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const setCookie = answer.headers.get("set-cookie") ?? "";
    assert.match(setCookie, /exchange_session=[^;]+; .*HttpOnly/i);
    assert.match(setCookie, /SameSite=Strict/i);
    assert.equal(answer.headers.get("access-control-allow-credentials"), "true");
    return { cookie: setCookie.split(";")[0]!, csrf: answer.body.csrfToken as string, account: answer.body };
  };

  return { call, signedMessage, signIn };
}
