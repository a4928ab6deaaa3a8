import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { adminRequest, exactJson, parseAdminArgs, resolveAdminToken, runAdmin, type AdminDeps } from "./admin-cli.ts";
import { parseJsonExact } from "../../exchange/core/money/index.ts";

const USER = "0b6f4a3e-8c1d-4f5e-9a2b-3c4d5e6f7a8b";

function command(argv: string[]) {
  const parsed = parseAdminArgs(argv);
  assert.ok(parsed.ok && "command" in parsed, parsed.ok ? "help" : parsed.error);
  return parsed.command;
}

function error(argv: string[]): string {
  const parsed = parseAdminArgs(argv);
  assert.equal(parsed.ok, false, `expected ${argv.join(" ")} to be refused`);
  return (parsed as { error: string }).error;
}

describe("parseAdminArgs", () => {
  it("parses each command", () => {
    assert.deepEqual(command(["create-user", "--level", "20"]), { name: "create-user", level: 20, address: null });
    assert.deepEqual(command(["create-user", "--level=0", "--address", "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65"]), {
      name: "create-user",
      level: 0,
      address: "0x15d34aaf54267db7d7c367839aaf71a00a2c6a65",
    });
    assert.deepEqual(command(["issue-key", "--user", USER.toUpperCase()]), { name: "issue-key", userId: USER });
    assert.deepEqual(
      command([
        "deposit",
        "--user",
        USER,
        "--currency",
        "usdt",
        "--amount",
        "100.5",
        "--reference",
        "tx 1",
        "--id",
        "dep-1",
      ]),
      {
        name: "deposit",
        userId: USER,
        currency: "USDT",
        amount: "100.5",
        reference: "tx 1",
        depositId: "dep-1",
      },
    );
    assert.deepEqual(command(["deposit", "--user", USER, "--currency", "ETH", "--amount", "0.000000000000000001"]), {
      name: "deposit",
      userId: USER,
      currency: "ETH",
      amount: "0.000000000000000001",
      reference: null,
      depositId: null,
    });
    assert.deepEqual(command(["balances", "--user", USER]), { name: "balances", userId: USER });
    assert.deepEqual(command(["ledger"]), { name: "ledger" });
    const json = parseAdminArgs(["ledger", "--json"]);
    assert.ok(json.ok && "json" in json && json.json);
  });

  it("recognises help", () => {
    for (const argv of [["--help"], ["-h"], ["help"], ["deposit", "--help"]]) {
      const parsed = parseAdminArgs(argv);
      assert.ok(parsed.ok && "help" in parsed, argv.join(" "));
    }
  });

  it("refuses missing, unknown and misplaced arguments", () => {
    assert.match(error([]), /no command/);
    assert.match(error(["make-user"]), /unknown command "make-user"/);
    assert.match(error(["ledger", "extra"]), /unexpected argument "extra"/);
    assert.match(error(["create-user"]), /create-user needs --level/);
    assert.match(error(["issue-key"]), /issue-key needs --user/);
    assert.match(error(["deposit", "--user", USER, "--currency", "USDT"]), /deposit needs --amount/);
    assert.match(error(["ledger", "--user", USER]), /ledger does not take --user/);
    assert.match(error(["create-user", "--level", "1", "--user", USER]), /create-user does not take --user/);
    assert.match(error(["ledger", "--bogus"]), /bogus/);
    assert.match(error(["create-user", "--level"]), /level/);
  });

  it("validates values", () => {
    for (const level of ["-1", "1001", "1.5", "abc", "", "99999"])
      assert.match(error(["create-user", `--level=${level}`]), /--level must be an integer/, level);
    assert.match(error(["create-user", "--level", "-1"]), /ambiguous/);
    assert.match(error(["create-user", "--level", "1", "--address", "0x1234"]), /--address must be/);
    assert.match(error(["issue-key", "--user", "42"]), /--user must be a user id/);
    assert.match(error(["balances", "--user", `${USER}x`]), /--user must be a user id/);
    for (const amount of ["-1", "1e3", ".5", "1.", "abc", "1,5", ""]) {
      assert.match(
        error(["deposit", "--user", USER, "--currency", "USDT", `--amount=${amount}`]),
        /--amount must be a plain decimal/,
        amount,
      );
    }
    assert.match(error(["deposit", "--user", USER, "--currency", "USDT", "--amount", "0.000"]), /more than zero/);
    assert.match(error(["deposit", "--user", USER, "--currency", "US-DT", "--amount", "1"]), /--currency must be/);
    assert.match(
      error(["deposit", "--user", USER, "--currency", "USDT", "--amount", "1", "--id", "x".repeat(101)]),
      /--id must be/,
    );
    assert.match(
      error(["deposit", "--user", USER, "--currency", "USDT", "--amount", "1", "--reference", "r".repeat(201)]),
      /--reference must be/,
    );
  });
});

describe("adminRequest", () => {
  it("maps commands to the admin endpoints with exact decimal strings", () => {
    assert.deepEqual(adminRequest({ name: "create-user", level: 20, address: null }), {
      method: "POST",
      path: "/admin/users",
      body: { level: 20, address: null },
    });
    assert.deepEqual(adminRequest({ name: "issue-key", userId: USER }), {
      method: "POST",
      path: `/admin/users/${USER}/keys`,
    });
    assert.deepEqual(
      adminRequest({ name: "deposit", userId: USER, currency: "ETH", amount: "1.5", reference: null, depositId: "d1" }),
      {
        method: "POST",
        path: "/admin/deposits",
        body: { userId: USER, currencyCode: "ETH", amount: "1.5", depositId: "d1" },
      },
    );
    assert.deepEqual(adminRequest({ name: "balances", userId: USER }), { method: "GET", path: `/admin/users/${USER}` });
    assert.deepEqual(adminRequest({ name: "ledger" }), { method: "GET", path: "/admin/ledger" });
  });
});

describe("resolveAdminToken", () => {
  it("prefers the environment, else reads the secrets file next to the data dir", async () => {
    assert.equal(
      await resolveAdminToken({ EXCHANGE_ADMIN_TOKEN: "from-env-token-123", EXCHANGE_DATA_DIR: ".data/exchange" }),
      "from-env-token-123",
    );
    let asked = "";
    const token = await resolveAdminToken({ EXCHANGE_DATA_DIR: "/srv/x/exchange" }, async (file) => {
      asked = file;
      return JSON.stringify({ adminToken: "from-file" });
    });
    assert.equal(token, "from-file");
    assert.equal(asked, "/srv/x/exchange-secrets.json");
  });

  it("explains a missing or broken file", async () => {
    const missing = Object.assign(new Error("nope"), { code: "ENOENT" });
    await assert.rejects(
      resolveAdminToken({ EXCHANGE_DATA_DIR: ".data/exchange" }, () => Promise.reject(missing)),
      /no admin token: set EXCHANGE_ADMIN_TOKEN/,
    );
    await assert.rejects(
      resolveAdminToken({ EXCHANGE_DATA_DIR: ".data/exchange" }, async () => "{"),
      /not JSON/,
    );
    await assert.rejects(
      resolveAdminToken({ EXCHANGE_DATA_DIR: ".data/exchange" }, async () => "{}"),
      /has no adminToken/,
    );
  });
});

describe("runAdmin", () => {
  function deps(respond: (url: string, init: RequestInit) => Response | Promise<Response>) {
    const out: string[] = [];
    const err: string[] = [];
    const calls: { url: string; init: RequestInit }[] = [];
    const d: AdminDeps = {
      url: "http://x.test:9/",
      token: async () => "tok",
      fetch: (async (url: string, init: RequestInit) => {
        calls.push({ url, init });
        return respond(url, init);
      }) as typeof fetch,
      out: (text) => out.push(text),
      err: (text) => err.push(text),
    };
    return { d, out, err, calls };
  }
  const json = (status: number, body: string) =>
    new Response(body, { status, headers: { "content-type": "application/json" } });

  it("exits 2 with the usage on bad arguments, without calling the server", async () => {
    const { d, err, calls } = deps(() => json(200, "{}"));
    assert.equal(await runAdmin(["deposit"], d), 2);
    assert.match(err.join("\n"), /deposit needs --user[\s\S]*Usage:/);
    assert.equal(calls.length, 0);
  });

  it("sends the bearer token and prints the key pair once as one JSON line", async () => {
    const { d, out, calls } = deps(() => json(201, `{"publicKey":"pub","privateKey":"priv"}`));
    assert.equal(await runAdmin(["issue-key", "--user", USER], d), 0);
    assert.equal(calls[0].url, `http://x.test:9/admin/users/${USER}/keys`);
    assert.equal((calls[0].init.headers as Record<string, string>).authorization, "Bearer tok");
    assert.deepEqual(out, [`{"userId":"${USER}","publicKey":"pub","privateKey":"priv"}`]);
  });

  it("prints 4xx answers as code: message and exits 1", async () => {
    const { d, err } = deps(() => json(404, `{"code":"NOT_FOUND","message":"Unknown user ${USER}"}`));
    assert.equal(await runAdmin(["balances", "--user", USER], d), 1);
    assert.equal(err[0], `NOT_FOUND: Unknown user ${USER}`);
  });

  it("says when the exchange is not running", async () => {
    const { d, err } = deps(() => {
      throw new TypeError("fetch failed", { cause: new Error("connect ECONNREFUSED 127.0.0.1:9") });
    });
    assert.equal(await runAdmin(["ledger"], d), 1);
    assert.match(err[0], /cannot reach the exchange at http:\/\/x.test:9 \(connect ECONNREFUSED.*is it running/);
  });

  it("keeps 18-decimal amounts exact and flags an unbalanced ledger", async () => {
    const body = `[{"currencyCode":"ETH","available":1000000.000000000000000001,"locked":0,"fees":0,"deposited":1000000.000000000000000001,"withdrawn":0,"balanced":true},
      {"currencyCode":"USDT","available":1,"locked":0,"fees":0,"deposited":2,"withdrawn":0,"balanced":false}]`;
    const { d, out, err } = deps(() => json(200, body));
    assert.equal(await runAdmin(["ledger"], d), 1);
    assert.match(out[0], /1000000\.000000000000000001/);
    assert.match(out[0], /USDT .* NO$/m);
    assert.match(err[0], /does not balance for USDT/);
  });

  it("exactJson writes numbers as they were received", () => {
    assert.equal(
      exactJson(parseJsonExact(`{"a":0.1,"b":[123456789.123456789012345678]}`)),
      `{"a":0.1,"b":[123456789.123456789012345678]}`,
    );
  });
});
