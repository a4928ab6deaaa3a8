import { readFileSync } from "node:fs";
import { createPublicClient, createWalletClient, erc20Abi, http, parseAbi, parseUnits } from "viem";
import { hardhat } from "viem/chains";
import { SigningClient } from "../support/exchange/signing-client.ts";
const dep = JSON.parse(readFileSync("deployments/31337.json", "utf8"));
const secrets = JSON.parse(readFileSync(".data/exchange-secrets.json", "utf8"));
const api = new SigningClient("http://127.0.0.1:8080", secrets.adminToken);
const u = await api.user(0);
const addr = (await api.signed(u, "GET", "/api/deposits/address?currencyCode=USDT")).body.address;
const pc = createPublicClient({ chain: hardhat, transport: http("http://127.0.0.1:8545") });
const wc = createWalletClient({ chain: hardhat, transport: http("http://127.0.0.1:8545") });
const accts = (await pc.request({ method: "eth_accounts" })) as `0x${string}`[];
const s = accts[19];
const usdt = dep.contracts.MockStableToken;
await pc.waitForTransactionReceipt({
  hash: await wc.writeContract({
    account: s,
    chain: hardhat,
    address: usdt,
    abi: parseAbi(["function mint(address,uint256)"]),
    functionName: "mint",
    args: [s, parseUnits("100", 6)],
  }),
});
const h = await wc.writeContract({
  account: s,
  chain: hardhat,
  address: usdt,
  abi: erc20Abi,
  functionName: "transfer",
  args: [addr, parseUnits("40", 6)],
});
const t0 = Date.now();
for (let i = 0; i < 120; i++) {
  const d = (await api.signed(u, "GET", "/api/deposits?pageSize=2")).body.items[0];
  if (d?.txHash === h.toLowerCase() && d.status === "credited") {
    console.log("credited after", Date.now() - t0, "ms", d.credited);
    break;
  }
  if (i % 8 === 0) console.log(d?.status, d?.confirmations);
  await new Promise((r) => setTimeout(r, 250));
}
const to = "0x000000000000000000000000000000000000dEaD";
const before = await pc.readContract({ address: usdt, abi: erc20Abi, functionName: "balanceOf", args: [to] });
const w = await api.signed(u, "POST", "/api/withdrawals", { currencyCode: "USDT", amount: "20", address: to });
console.log("withdraw", w.status, w.text.slice(0, 200));
for (let i = 0; i < 120; i++) {
  const x = (await api.signed(u, "GET", "/api/withdrawals")).body.items[0];
  if (x.status === "completed" || x.status === "failed") {
    console.log(x.status, x.txHash, x.failureReason);
    break;
  }
  await new Promise((r) => setTimeout(r, 500));
}
const after = await pc.readContract({ address: usdt, abi: erc20Abi, functionName: "balanceOf", args: [to] });
console.log("recipient grew by", after - before);
await new Promise((r) => setTimeout(r, 16000));
console.log(
  "forwarder USDT after sweep interval",
  await pc.readContract({ address: usdt, abi: erc20Abi, functionName: "balanceOf", args: [addr] }),
);
const r = await api.admin("GET", "/admin/reserves");
console.log(r.status, JSON.stringify(r.body).slice(0, 600));
