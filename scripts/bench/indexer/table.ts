/** A plain-text table: first column left-aligned, the rest right-aligned (numbers). */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])))
      .join("  ")
      .trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

export const int = (n: number) => Math.round(n).toLocaleString("en-US");
export const fixed = (n: number, digits = 1) => n.toFixed(digits);
export const ratio = (n: number) => `${n.toFixed(2)}x`;
