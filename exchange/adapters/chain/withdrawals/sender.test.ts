import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { Deployment } from "../../../../lib/deployments.ts";
import { openDemoDb } from "../../../../support/exchange/demo-db.ts";
import { freePort } from "../../../../support/net/free-port.ts";
import { Exchange } from "../../../application/index.ts";
import { createKeyVault, generateApiKeyPair, parseServerKey } from "../../auth/index.ts";
import { createCommitter, type Db, exchangeStore } from "../../store/index.ts";
import { startWithdrawalSender, type WithdrawalSender } from "./index.ts";

// The sender with its node away (a port nobody listens on): it keeps retrying and logging, the
// exchange keeps taking withdrawals (checked by the gateway's rules, left pending), and close()
// returns at once. The chain itself is in test/exchange/withdrawals.test.ts.

const at = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;

describe("withdrawal sender with the node away", () => {
  let dir: string;
  let journalDir: string;
  let db: Db;
  let exchange: Exchange;
  let sender: WithdrawalSender;
  const logs: string[] = [];

  beforeAll(async () => {
    ({ dir, db } = await openDemoDb("exchange-sender-"));
    journalDir = await mkdtemp(join(tmpdir(), "hot-wallet-"));
    exchange = await Exchange.open({
      store: exchangeStore(db),
      committer: createCommitter(db),
      vault: createKeyVault(parseServerKey("55".repeat(32))),
      generateKeyPair: generateApiKeyPair,
    });
    const contracts = Object.fromEntries(
      ["MockStableToken", "WrappedNative", "DepositForwarderFactory", "DepositForwarder"].map((name, i) => [
        name,
        at(0xc0 + i),
      ]),
    );
    const deployment = { chainId: 31337, contracts, accounts: {} } as unknown as Deployment;
    sender = startWithdrawalSender({
      exchange,
      config: {
        rpcUrl: `http://127.0.0.1:${await freePort()}`,
        chainId: 31337,
        rpcTimeoutMs: 200,
        pollMs: 50,
        confirmations: 2,
        deployment,
        hotWallet: mnemonicToAccount("test test test test test test test test test test test junk", {
          addressIndex: 15,
        }),
      },
      log: (line) => logs.push(line),
      journal: { dataDir: journalDir, schema: "hot_wallet", timeoutMs: 5_000 },
    });
  });

  afterAll(async () => {
    await sender?.close();
    await exchange?.close();
    await db?.close();
    await rm(dir, { recursive: true, force: true });
    await rm(journalDir, { recursive: true, force: true });
  });

  it("retries with a log line, takes withdrawals meanwhile (pending), and refuses bad ones", async () => {
    const user = await exchange.createUser(0, null);
    await exchange.deposit({ userId: user.id, currency: "USDT", amount: "1000", reference: null });
    const { withdrawal } = await exchange.withdraw({
      userId: user.id,
      currency: "USDT",
      amount: "100",
      address: at(0xbeef),
    });
    await assert.rejects(exchange.withdraw({ userId: user.id, currency: "USDT", amount: "100", address: "0xbeef" }), {
      code: "INVALID_PARAM",
    });
    await assert.rejects(exchange.withdraw({ userId: user.id, currency: "USDT", amount: "100", address: at(0xc2) }), {
      code: "INVALID_PARAM",
      message: /exchange's own address \(the DepositForwarderFactory contract\)/,
    });
    await assert.rejects(
      exchange.withdraw({ userId: user.id, currency: "ALPHA", amount: "100", address: at(0xbeef) }),
      {
        code: "WITHDRAWALS_DISABLED",
      },
    );
    assert.equal(exchange.canWithdraw("ALPHA"), false);
    await sleep(1_200);
    assert.ok(
      logs.filter((line) => line.includes("withdrawal sender not started yet (retrying")).length >= 2,
      logs.join("\n"),
    );
    assert.equal((await exchange.withdrawal(withdrawal.id)).status, "pending");
    const t = Date.now();
    await sender.close();
    assert.ok(Date.now() - t < 2_000, "close() does not wait out the backoff");
  });
});
