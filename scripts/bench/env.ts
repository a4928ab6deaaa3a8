/** A positive integer knob from the environment (BENCH_*), or `fallback`; anything else stops the bench. */
export function envInt(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}
