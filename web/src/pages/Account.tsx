import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { createSiweMessage } from "viem/siwe";
import { useSignMessage } from "wagmi";
import { Balances } from "../account/Balances.tsx";
import type { Account, NewKey } from "../account/client.ts";
import { Deposit } from "../account/Deposit.tsx";
import { useAccountClient, useExchangeAccount } from "../account/session.ts";
import { Withdraw } from "../account/Withdraw.tsx";
import { CopyableAddress } from "../components/address.tsx";
import { Empty, ErrorState, Loading, QueryState } from "../components/states.tsx";
import { RelativeTime } from "../components/time.tsx";
import { usePlatform } from "../context.ts";
import { walletErrorText } from "../wallet/errors.ts";
import { WithWallet } from "../wallet/guard.tsx";

/**
 * The exchange's web account: sign in with the wallet (an EIP-4361 message the exchange checks),
 * then the API-keys page SPEC.md names: create a key pair (the private key shown once), list the
 * live keys, revoke one. Keys made here sign requests as SPEC.md's Authentication says.
 */
export default function AccountPage() {
  const account = useExchangeAccount();
  return (
    <>
      <h1>Exchange account</h1>
      <QueryState query={account} loading="Reading your session…">
        {(me) =>
          me === null ? (
            <section aria-labelledby="sign-in-heading" className="panel">
              <h2 id="sign-in-heading">Sign in</h2>
              <p className="muted">
                The exchange knows you by your wallet's address: sign a message (no transaction, no gas) to open a
                session. A first sign-in opens your account.
              </p>
              <WithWallet what="sign in">{(address) => <SignIn address={address} />}</WithWallet>
            </section>
          ) : (
            <SignedIn me={me} />
          )
        }
      </QueryState>
    </>
  );
}

function SignIn({ address }: { address: `0x${string}` }) {
  const { config } = usePlatform();
  const client = useAccountClient();
  const queryClient = useQueryClient();
  const { signMessageAsync } = useSignMessage();
  const signIn = useMutation({
    mutationFn: async () => {
      const message = createSiweMessage({
        address,
        domain: window.location.host,
        uri: window.location.origin,
        version: "1",
        chainId: config.chainId,
        nonce: await client.nonce(),
        issuedAt: new Date(),
        statement: "Sign in to the agent exchange.",
      });
      return client.signIn(message, await signMessageAsync({ message }));
    },
    onSuccess: (me) => queryClient.setQueryData(["exchange-account"], me),
  });
  return (
    <>
      <button type="button" disabled={signIn.isPending} onClick={() => signIn.mutate()}>
        Sign in with Ethereum
      </button>
      {signIn.isPending && <p role="status">Waiting for your wallet's signature…</p>}
      {signIn.error && <ErrorState error={walletOrApiError(signIn.error)} />}
    </>
  );
}

/** A wallet's refusal in its words; the exchange's refusals as they are. */
const walletOrApiError = (error: unknown) =>
  (error as { status?: number }).status !== undefined ? error : new Error(walletErrorText(error));

function SignedIn({ me }: { me: Account }) {
  const client = useAccountClient();
  const queryClient = useQueryClient();
  // Signed out either way when the session had already ended (401); the next user sees no keys of this one.
  const signOut = useMutation({
    mutationFn: () =>
      client.signOut(me.csrfToken).catch((error: unknown) => {
        if ((error as { status?: number }).status !== 401) throw error;
      }),
    onSuccess: () => {
      // Keys, balances, deposits, withdrawals and orders: every per-user query of the exchange.
      queryClient.removeQueries({
        predicate: (q) => String(q.queryKey[0]).startsWith("exchange-") && q.queryKey[0] !== "exchange-account",
      });
      queryClient.setQueryData(["exchange-account"], null);
    },
  });
  return (
    <>
      <section aria-labelledby="account-heading">
        <h2 id="account-heading">Account</h2>
        <dl className="stats">
          <div>
            <dt>Address</dt>
            <dd>
              <CopyableAddress address={me.address} label="account address" />
            </dd>
          </div>
          <div>
            <dt>Account id</dt>
            <dd>
              <code>{me.userId}</code>
            </dd>
          </div>
          <div>
            <dt>Level (commission tier)</dt>
            <dd>{me.level}</dd>
          </div>
          <div>
            <dt>Session ends</dt>
            <dd>
              <RelativeTime time={Math.floor(me.sessionExpiresAt / 1000)} clock="wall" />
            </dd>
          </div>
        </dl>
        <button type="button" disabled={signOut.isPending} onClick={() => signOut.mutate()}>
          Sign out
        </button>
        {signOut.error && <ErrorState error={signOut.error} />}
      </section>
      <Balances userId={me.userId} />
      <Deposit userId={me.userId} />
      <Withdraw userId={me.userId} csrf={me.csrfToken} />
      <ApiKeys csrf={me.csrfToken} userId={me.userId} />
    </>
  );
}

function ApiKeys({ csrf, userId }: { csrf: string; userId: string }) {
  const client = useAccountClient();
  const queryClient = useQueryClient();
  const [fresh, setFresh] = useState<NewKey | null>(null);
  const keys = useQuery({ queryKey: ["exchange-keys", userId], queryFn: () => client.keys() });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ["exchange-keys", userId] });
  const create = useMutation({
    mutationFn: () => client.createKey(csrf),
    onSuccess: (key) => {
      setFresh(key);
      refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: (publicKey: string) => client.revokeKey(csrf, publicKey),
    onSuccess: (_, publicKey) => {
      if (fresh?.publicKey === publicKey) setFresh(null);
      refresh();
    },
  });
  return (
    <section aria-labelledby="keys-heading">
      <h2 id="keys-heading">API keys</h2>
      <p className="muted">
        A key pair signs requests to the exchange (HMAC-SHA256 of public key, URL, body and timestamp; see the README)
        and the ecosystem API's writes. Revoking one refuses its requests at once.
      </p>
      <button type="button" disabled={create.isPending} onClick={() => create.mutate()}>
        Create API key
      </button>
      {create.error && <ErrorState error={create.error} />}
      {fresh && (
        <div className="state panel" role="status" aria-label="New API key">
          <p>
            <strong>Store the private key now: it is shown only this once.</strong>
          </p>
          <p>
            Public key <CopyableAddress address={fresh.publicKey} label="public key" />
          </p>
          <p>
            Private key <CopyableAddress address={fresh.privateKey} label="private key" />
          </p>
        </div>
      )}
      <QueryState query={keys} loading="Loading your keys…">
        {(items) =>
          items.length === 0 ? (
            <Empty>No API key yet.</Empty>
          ) : (
            <div className="table-wrap">
              <table>
                <caption className="muted">Live keys, oldest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Public key</th>
                    <th scope="col">Created</th>
                    <th scope="col">Last used</th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {items.map((key) => (
                    <tr key={key.publicKey}>
                      <td>
                        <code>{key.publicKey}</code>
                      </td>
                      <td>
                        <RelativeTime time={Math.floor(key.createdAt / 1000)} clock="wall" />
                      </td>
                      <td>
                        <RelativeTime
                          time={key.lastUsedAt === null ? null : Math.floor(key.lastUsedAt / 1000)}
                          clock="wall"
                        />
                      </td>
                      <td>
                        <button
                          type="button"
                          className="small"
                          aria-label={`Revoke ${key.publicKey}`}
                          disabled={revoke.isPending}
                          onClick={() => revoke.mutate(key.publicKey)}
                        >
                          Revoke
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryState>
      {revoke.error && <ErrorState error={revoke.error} />}
      {keys.isFetching && !keys.isPending && <Loading label="Refreshing…" />}
    </section>
  );
}
