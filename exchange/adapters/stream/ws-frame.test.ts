import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { wsFrame } from "./ws-server.ts";

describe("wsFrame", () => {
  it("writes FIN + text opcode and the payload length in 7, 16 or 64 bits (RFC 6455 5.2)", () => {
    for (const [length, header] of [
      [0, 2],
      [125, 2],
      [126, 4],
      [65_535, 4],
      [65_536, 10],
    ] as const) {
      const text = "x".repeat(length);
      const frame = wsFrame(text);
      assert.equal(frame[0], 0x81, `first byte at ${length}`);
      assert.equal(frame.length, header + length);
      if (header === 2) assert.equal(frame[1], length);
      if (header === 4) assert.deepEqual([frame[1], frame.readUInt16BE(2)], [126, length]);
      if (header === 10) assert.deepEqual([frame[1], frame.readBigUInt64BE(2)], [127, BigInt(length)]);
      assert.equal(frame.subarray(header).toString(), text);
    }
  });

  it("counts the payload in bytes, not characters", () => {
    const frame = wsFrame("é€");
    assert.equal(frame[1], 5);
    assert.equal(frame.subarray(2).toString(), "é€");
  });
});
