import { INTERVAL_LABELS, type Interval } from "../lib/candles.ts";

/** The chart intervals offered on every chart: 300 candles of each reach from 5 hours to 300 days. */
export const CHART_INTERVALS: readonly Interval[] = ["minute", "minutes5", "minutes15", "hour", "hour4", "day"];

/** The interval buttons above a chart; the chosen one is pressed. */
export function IntervalPicker({ value, onChange }: { value: Interval; onChange: (interval: Interval) => void }) {
  return (
    <fieldset className="segmented">
      <legend className="muted">Interval</legend>
      {CHART_INTERVALS.map((i) => (
        <button key={i} type="button" aria-pressed={i === value} onClick={() => onChange(i)}>
          {INTERVAL_LABELS[i]}
        </button>
      ))}
    </fieldset>
  );
}
