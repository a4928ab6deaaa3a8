import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useWriteContract } from "wagmi";
import type { EcosystemData } from "../api/clients.ts";
import { QueryState } from "../components/states.tsx";
import { RelativeTime } from "../components/time.tsx";
import { usePlatform } from "../context.ts";
import { WorkerVotingAbi } from "../wallet/abis.ts";
import { WithWallet } from "../wallet/guard.tsx";
import { TxStatus } from "../wallet/TxStatus.tsx";
import { useTxFlow } from "../wallet/tx.ts";

type Proposal = EcosystemData<"/api/agents/workers/{tokenId}/proposals">["items"][number];

const MEV = ["off", "private_relay", "batch_auction"] as const;
const SUPPORT = { yes: 0, no: 1, abstain: 2 } as const;

function Tally({ p }: { p: Proposal }) {
  const t = p.tally;
  return (
    <dl className="stats">
      <div>
        <dt>Yes</dt>
        <dd>{t.yesWeight.toLocaleString("en-US")}</dd>
      </div>
      <div>
        <dt>No</dt>
        <dd>{t.noWeight.toLocaleString("en-US")}</dd>
      </div>
      <div>
        <dt>Abstain</dt>
        <dd>{t.abstainWeight.toLocaleString("en-US")}</dd>
      </div>
      <div>
        <dt>Quorum</dt>
        <dd>
          {t.quorumReached ? "reached" : "not reached"} ({t.quorumThreshold.toLocaleString("en-US")})
        </dd>
      </div>
      <div>
        <dt>Passing</dt>
        <dd>{t.currentlyPassing ? "yes" : "no"}</dd>
      </div>
    </dl>
  );
}

function VoteButtons({ proposal, onIndexed }: { proposal: Proposal; onIndexed: () => void }) {
  const { config, api } = usePlatform();
  const { writeContractAsync } = useWriteContract();
  const tx = useTxFlow();
  const vote = (choice: keyof typeof SUPPORT, account: string) =>
    tx.run(
      [
        {
          label: `Vote ${choice}`,
          send: () =>
            writeContractAsync({
              address: config.contracts.WorkerVoting as `0x${string}`,
              abi: WorkerVotingAbi,
              functionName: "castVote",
              args: [BigInt(proposal.proposalId), SUPPORT[choice], ""],
            }),
        },
      ],
      async () => {
        const detail = await api.eco("/api/agents/proposals/{proposalId}", {
          path: { proposalId: proposal.proposalId },
          query: { pageSize: 100 },
        });
        const seen = detail.votes.items.some((v) => v.voter.toLowerCase() === account.toLowerCase());
        if (seen) onIndexed();
        return seen;
      },
    );
  return (
    <WithWallet what="vote">
      {(account) => (
        <div>
          <div className="row">
            <button type="button" className="buy" disabled={tx.busy} onClick={() => void vote("yes", account)}>
              Vote yes
            </button>
            <button type="button" className="sell" disabled={tx.busy} onClick={() => void vote("no", account)}>
              Vote no
            </button>
            <button
              type="button"
              className="secondary"
              disabled={tx.busy}
              onClick={() => void vote("abstain", account)}
            >
              Abstain
            </button>
          </div>
          <TxStatus state={tx.state} />
        </div>
      )}
    </WithWallet>
  );
}

function OpenProposalForm({ workerId, tokenAddress }: { workerId: number; tokenAddress: string }) {
  const { config, api } = usePlatform();
  const queryClient = useQueryClient();
  const { writeContractAsync } = useWriteContract();
  const tx = useTxFlow();
  const [cap, setCap] = useState("100");
  const [mev, setMev] = useState<(typeof MEV)[number]>("off");
  const [signals, setSignals] = useState("");
  const [description, setDescription] = useState("");
  const capValid = /^\d{1,5}$/.test(cap) && Number(cap) <= 10_000;
  return (
    <WithWallet what="open a proposal">
      {(account) => (
        <form
          className="trade-form"
          aria-label="Open a proposal"
          onSubmit={(e) => {
            e.preventDefault();
            if (!capValid) return;
            const before = Date.now() / 1000 - 5;
            void tx.run(
              [
                {
                  label: "Open proposal",
                  send: () =>
                    writeContractAsync({
                      address: config.contracts.WorkerVoting as `0x${string}`,
                      abi: WorkerVotingAbi,
                      functionName: "propose",
                      args: [
                        BigInt(workerId),
                        {
                          slippageCapBps: Number(cap),
                          mevProtection: MEV.indexOf(mev),
                          signalSubscriptions: signals
                            .split(",")
                            .map((s) => s.trim())
                            .filter(Boolean),
                        },
                        description,
                      ],
                    }),
                },
              ],
              async (hash) => {
                const list = await api.eco("/api/agents/workers/{tokenId}/proposals", {
                  path: { tokenId: tokenAddress },
                  query: { pageSize: 5 },
                });
                const found = list.items.some(
                  (p) =>
                    p.txHash.toLowerCase() === hash.toLowerCase() ||
                    (p.proposer === account.toLowerCase() && p.proposedAt >= before),
                );
                if (found) void queryClient.invalidateQueries({ queryKey: ["proposals", tokenAddress] });
                return found;
              },
            );
          }}
        >
          <div className="row">
            <label>
              Slippage cap (bps)
              <input
                inputMode="numeric"
                value={cap}
                onChange={(e) => setCap(e.target.value)}
                aria-invalid={!capValid}
              />
            </label>
            <label>
              MEV protection
              <select value={mev} onChange={(e) => setMev(e.target.value as (typeof MEV)[number])}>
                {MEV.map((m) => (
                  <option key={m} value={m}>
                    {m}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Signal subscriptions (comma-separated)
              <input value={signals} onChange={(e) => setSignals(e.target.value)} />
            </label>
          </div>
          <label>
            Proposal description
            <textarea rows={2} maxLength={1000} value={description} onChange={(e) => setDescription(e.target.value)} />
          </label>
          {!capValid && (
            <p className="error-text">The slippage cap is a whole number of basis points from 0 to 10,000.</p>
          )}
          <div>
            <button type="submit" disabled={tx.busy || !capValid}>
              Open proposal
            </button>
          </div>
          <TxStatus state={tx.state} />
        </form>
      )}
    </WithWallet>
  );
}

export function ProposalsPanel({ tokenAddress, workerId }: { tokenAddress: string; workerId: number }) {
  const { api } = usePlatform();
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: ["proposals", tokenAddress],
    queryFn: () =>
      api.eco("/api/agents/workers/{tokenId}/proposals", { path: { tokenId: tokenAddress }, query: { pageSize: 10 } }),
  });
  return (
    <section aria-labelledby="proposals-heading">
      <h2 id="proposals-heading">Proposals</h2>
      <QueryState query={query}>
        {(data) =>
          data.items.length === 0 ? (
            <p className="muted">No proposal for this worker yet.</p>
          ) : (
            <ul className="plain grid">
              {data.items.map((p) => (
                <li key={p.proposalId} className="panel">
                  <p>
                    <strong>#{p.proposalId}</strong> <span className="badge">{p.state}</span> slippage cap{" "}
                    {p.config.slippageCapBps} bps, MEV {p.config.mevProtection}
                    {p.description ? ` — ${p.description}` : ""}
                  </p>
                  <p className="muted">
                    {p.voteCount} vote{p.voteCount === 1 ? "" : "s"};{" "}
                    {p.open ? "voting ends" : p.state === "pending" ? "voting opens" : "ended"}{" "}
                    <RelativeTime time={p.state === "pending" ? p.startsAt : p.endsAt} />
                  </p>
                  <Tally p={p} />
                  {p.open && (
                    <VoteButtons
                      proposal={p}
                      onIndexed={() => void queryClient.invalidateQueries({ queryKey: ["proposals", tokenAddress] })}
                    />
                  )}
                </li>
              ))}
            </ul>
          )
        }
      </QueryState>
      <h3>Open a proposal</h3>
      <OpenProposalForm workerId={workerId} tokenAddress={tokenAddress} />
    </section>
  );
}
