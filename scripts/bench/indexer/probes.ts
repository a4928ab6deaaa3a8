import type { Probe } from "./latency.ts";

const ROW_TARGET = 1.5;
const PAGE_1 = "action-logs page 1";

/**
 * The list endpoints measured at `rows` action-log rows. Actions go to tokens in turn, so the
 * first token (`tokenNftId`) has ceil(rows / tokens) of them. Deep pages are the last full page
 * unless BENCH_DEEP_PAGE says otherwise: the worst case for OFFSET paging.
 */
export function listProbes(opts: {
  rows: number;
  tokens: number;
  tokenNftId: bigint;
  pageSize: number;
  deepPage?: number;
}): Probe[] {
  const ps = opts.pageSize;
  const itemsOn = (count: number, page: number) => Math.max(0, Math.min(ps, count - (page - 1) * ps));
  const deep = opts.deepPage ?? Math.max(1, Math.floor(opts.rows / ps));
  const tokenRows = Math.ceil(opts.rows / opts.tokens);
  const tokenDeep = Math.max(1, Math.floor(tokenRows / ps));
  const actions = (query: string) => `/api/agents/action-logs?${query}&pageSize=${ps}`;
  const token = `action-logs tokenId=${opts.tokenNftId} page 1`;
  const reportOnly = { name: PAGE_1, maxRatio: Number.POSITIVE_INFINITY };
  return [
    { name: PAGE_1, path: actions("page=1"), expectItems: itemsOn(opts.rows, 1) },
    {
      name: `action-logs page ${deep}`,
      path: actions(`page=${deep}`),
      expectItems: itemsOn(opts.rows, deep),
      baseline: { name: PAGE_1, maxRatio: ROW_TARGET },
    },
    { name: token, path: actions(`tokenId=${opts.tokenNftId}&page=1`), expectItems: itemsOn(tokenRows, 1) },
    {
      name: `action-logs tokenId=${opts.tokenNftId} page ${tokenDeep}`,
      path: actions(`tokenId=${opts.tokenNftId}&page=${tokenDeep}`),
      expectItems: itemsOn(tokenRows, tokenDeep),
      baseline: { name: token, maxRatio: ROW_TARGET },
    },
    {
      name: "workers page 1",
      path: `/api/agents/workers?page=1&pageSize=${ps}`,
      expectItems: Math.min(ps, opts.tokens),
      baseline: reportOnly,
    },
    {
      name: "launchpad tokens page 1",
      path: `/api/launchpad/tokens?page=1&pageSize=${ps}`,
      expectItems: Math.min(ps, opts.tokens),
      baseline: reportOnly,
    },
  ];
}
