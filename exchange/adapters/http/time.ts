// Times at the edge: ISO 8601 UTC. Deal times keep their microseconds (SPEC.md dealDateUtc
// "with sub-millisecond precision and trailing Z").

export function isoFromMs(ms: number): string {
  return new Date(ms).toISOString();
}

export function isoFromMicros(us: number): string {
  const ms = Math.floor(us / 1000);
  const micros = us - ms * 1000;
  return `${new Date(ms).toISOString().slice(0, 23)}${String(micros).padStart(3, "0")}Z`;
}
