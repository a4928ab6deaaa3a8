import assert from "node:assert/strict";
import { describe, it } from "vitest";
import type { Deployment } from "../../../lib/deployments.ts";
import { DepositAddresses } from "./deposit-addresses.ts";

const at = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const deployment = {
  contracts: { DepositForwarderFactory: at(0xf1), DepositForwarder: at(0xf2) },
} as unknown as Deployment;

describe("DepositAddresses.addUsers", () => {
  it("derives the addresses of users that appeared since, and only reads the users when there are new ones", () => {
    const addresses = new DepositAddresses(deployment);
    const ids = ["u-1", "u-2"];
    let reads = 0;
    const users = {
      get userCount() {
        return ids.length;
      },
      userIds: () => {
        reads++;
        return ids.values();
      },
    };
    addresses.addUsers(users);
    assert.equal(addresses.size, 2);
    assert.equal(addresses.userOf(addresses.of("u-2")), "u-2");
    addresses.addUsers(users);
    assert.equal(reads, 1, "no new user: nothing read");
    ids.push("u-3");
    addresses.addUsers(users);
    assert.equal(reads, 2);
    assert.equal(addresses.userOf(addresses.of("u-3").toUpperCase().replace("0X", "0x")), "u-3");
  });
});
