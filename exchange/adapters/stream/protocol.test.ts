import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { MARKET_STREAM, parseClientMessage } from "./protocol.ts";

describe("parseClientMessage", () => {
  it("reads SUBSCRIBE, UNSUBSCRIBE, LIST_SUBSCRIPTIONS and LOGIN with their ids", () => {
    assert.deepEqual(parseClientMessage('{"method":"SUBSCRIBE","params":["ETH_USDT@trade"],"id":1}'), {
      ok: true,
      message: { method: "SUBSCRIBE", params: ["ETH_USDT@trade"], id: 1 },
    });
    const login = parseClientMessage(
      '{"method":"LOGIN","params":{"apiKey":"k","timestamp":17,"signature":"s"},"id":"a"}',
    );
    assert.ok(login.ok);
    assert.deepEqual(login.message.params, { apiKey: "k", timestamp: "17", signature: "s" });
    assert.ok(parseClientMessage('{"method":"LIST_SUBSCRIPTIONS"}').ok);
  });

  it("refuses malformed messages with INVALID_PARAM, echoing the id when there is one", () => {
    assert.deepEqual(parseClientMessage("{"), {
      ok: false,
      error: { code: "INVALID_PARAM", message: "the message is not JSON" },
    });
    const unknown = parseClientMessage('{"method":"PUBLISH","id":9}');
    assert.ok(!unknown.ok);
    assert.equal(unknown.id, 9);
    assert.match(unknown.error.message, /method must be one of SUBSCRIBE/);
    const empty = parseClientMessage('{"method":"SUBSCRIBE","params":[],"id":2}');
    assert.ok(!empty.ok);
    assert.match(empty.error.message, /params/);
    assert.ok(
      !parseClientMessage('{"method":"SUBSCRIBE","params":["x"],"id":{"a":1}}').ok,
      "ids are numbers or strings",
    );
    assert.ok(!parseClientMessage("null").ok);
  });

  it("names market streams by an upper-case pair code and one of three kinds", () => {
    assert.equal(MARKET_STREAM.exec("ALPHA_USDT@depth")?.[1], "ALPHA_USDT");
    for (const bad of ["alpha_usdt@depth", "ALPHA_USDT@depth@100ms", "ALPHA@trade", "ALPHA_USDT@kline"])
      assert.equal(MARKET_STREAM.exec(bad), null, bad);
  });
});
