import { describe, expect, it } from "vitest";
import { createReadCache } from "./read-cache.ts";

const text = (body: Uint8Array) => new TextDecoder().decode(body);

describe("createReadCache", () => {
  it("makes an answer once per version, and again when the version moves", async () => {
    const cache = createReadCache();
    let made = 0;
    const make = async () => ({ made: ++made });
    expect(text(await cache.get("deals A", "1", make))).toBe('{"made":1}');
    expect(text(await cache.get("deals A", "1", make))).toBe('{"made":1}');
    expect(text(await cache.get("deals A", "2", make))).toBe('{"made":2}');
    expect(text(await cache.get("deals B", "2", make))).toBe('{"made":3}');
    expect(cache.size).toBe(2);
  });

  it("keeps at most maxEntries and maxBytes, dropping the oldest, and never an oversized body", async () => {
    const byEntries = createReadCache({ maxEntries: 2 });
    for (const key of ["a", "b", "c"]) await byEntries.get(key, "1", async () => key);
    expect(byEntries.size).toBe(2);
    let remade = false;
    await byEntries.get("a", "1", async () => {
      remade = true;
      return "a";
    });
    expect(remade).toBe(true);

    const byBytes = createReadCache({ maxBytes: 10, maxEntryBytes: 8 });
    await byBytes.get("x", "1", async () => "12345"); // 7 bytes with its quotes
    await byBytes.get("y", "1", async () => "1234"); // 6: 13 in all, so x goes
    expect(byBytes.size).toBe(1);
    expect(text(await byBytes.get("big", "1", async () => "0123456789"))).toBe('"0123456789"');
    expect(byBytes.size).toBe(1);
  });

  it("keeps nothing when making the answer fails", async () => {
    const cache = createReadCache();
    await expect(cache.get("k", "1", async () => Promise.reject(new Error("database away")))).rejects.toThrow();
    expect(cache.size).toBe(0);
  });
});
