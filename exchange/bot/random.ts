// A small seeded random source for the market-making bot: the same BOT_SEED replays the same
// random walk and the same order choices. Randomness only picks steps and sides; prices and
// amounts stay integer ticks and lots (see ladder.ts).

import { mulberry32, type Random } from "../../lib/random.ts";

export type { Random };

/** 32-bit FNV-1a of the seed text, so any BOT_SEED (a word or a number) maps to a state. */
export function seedState(seed: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) {
    hash ^= seed.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** Uniform floats in [0, 1), deterministic per seed text. */
export function createRandom(seed: string): Random {
  return mulberry32(seedState(seed));
}

/** A uniform integer in [min, max] (inclusive), for small ranges. */
export function randomInt(random: Random, min: number, max: number): number {
  if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || max < min)
    throw new RangeError(`randomInt: bad range [${min}, ${max}]`);
  return min + Math.floor(random() * (max - min + 1));
}

/** A uniform bigint in [min, max] (inclusive); the range must fit a safe integer. */
export function randomBigInt(random: Random, min: bigint, max: bigint): bigint {
  if (max < min) throw new RangeError(`randomBigInt: bad range [${min}, ${max}]`);
  const span = max - min;
  if (span > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError("randomBigInt: range too wide");
  return min + BigInt(randomInt(random, 0, Number(span)));
}
