import { describe, expect, it } from "vitest";
import { type SpawnInput, validateSpawn } from "./validate.ts";

const valid: SpawnInput = {
  name: "Zeta agent",
  symbol: "ZETA",
  totalSupply: "1000000000",
  poolSide: "STABLE",
  description: "",
  logoUri: "",
  website: "",
};

describe("validateSpawn", () => {
  it("accepts a valid form and gives the supply in base units", () => {
    expect(validateSpawn(valid)).toEqual({ errors: {}, totalSupplyWei: 10n ** 27n });
  });
  it("applies SPEC.md's symbol and name rules", () => {
    for (const symbol of ["AB", "ABCDEF", "abc", "AB1", "ÄBC"])
      expect(validateSpawn({ ...valid, symbol }).errors.symbol).toBeDefined();
    expect(validateSpawn({ ...valid, name: "x".repeat(51) }).errors.name).toBe("At most 50 characters");
    expect(validateSpawn({ ...valid, name: "é".repeat(26) }).errors.name).toMatch(/50 bytes/);
    expect(validateSpawn({ ...valid, name: "  " }).errors.name).toBeDefined();
  });
  it("bounds the supply as the contract does", () => {
    expect(validateSpawn({ ...valid, totalSupply: "0" }).errors.totalSupply).toBeDefined();
    expect(validateSpawn({ ...valid, totalSupply: "1000000000001" }).errors.totalSupply).toBeDefined();
    expect(validateSpawn({ ...valid, totalSupply: "1.5" }).errors.totalSupply).toBeDefined();
    expect(validateSpawn({ ...valid, totalSupply: "1,000" }).totalSupplyWei).toBe(1000n * 10n ** 18n);
  });
});
