import { isAddress } from "viem";
import { z } from "zod";

/** Chain addresses as every part of the platform accepts them: viem's check, one message. */

export const ADDRESS_PROBLEM = "must be a 0x-prefixed 20-byte hex address";

/** A 0x-prefixed 20-byte hex address in any letter case (checksums are not enforced). */
export const isHexAddress = (value: string): value is `0x${string}` => isAddress(value, { strict: false });

/** An address as given, any case. */
export const addressText = z
  .string()
  .refine(isHexAddress, { error: ADDRESS_PROBLEM })
  .meta({ pattern: "^0x[0-9a-fA-F]{40}$" }) as unknown as z.ZodType<`0x${string}`, string>;
