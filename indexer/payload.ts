import { hexToString } from "viem";

/**
 * An action's payload as the API shows it (`actionPayload`, an object): the bytes decoded as
 * UTF-8 JSON when they are a JSON object, otherwise null (the raw bytes are kept beside it).
 */
export function decodePayload(payload: `0x${string}`): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(hexToString(payload));
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
