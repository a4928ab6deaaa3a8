import { CandlestickSeries, createChart, type IChartApi, type ISeriesApi, type UTCTimestamp } from "lightweight-charts";
import { useEffect, useRef } from "react";
import type { Candle } from "../lib/candles.ts";
import { formatPrice } from "../lib/format.ts";

/**
 * TradingView's lightweight-charts (its attribution logo stays on, and the footer links to it).
 * Candles stay decimal strings everywhere else; they become numbers only here, for drawing.
 */
export function CandleChart({ candles, label }: { candles: Candle[]; label: string }) {
  const container = useRef<HTMLElement>(null);
  const chart = useRef<IChartApi | null>(null);
  const series = useRef<ISeriesApi<"Candlestick"> | null>(null);

  useEffect(() => {
    if (!container.current) return;
    const created = createChart(container.current, {
      autoSize: true,
      layout: { background: { color: "#161b22" }, textColor: "#c9d1d9", attributionLogo: true },
      grid: { vertLines: { color: "#21262d" }, horzLines: { color: "#21262d" } },
      timeScale: { timeVisible: true, secondsVisible: false },
      localization: { priceFormatter: (price: number) => formatPrice(price.toFixed(20)) },
    });
    series.current = created.addSeries(CandlestickSeries, {
      upColor: "#3fb950",
      downColor: "#ff7b72",
      borderVisible: false,
      wickUpColor: "#3fb950",
      wickDownColor: "#ff7b72",
      // `base` rather than minMove 1e-18: the chart derives its ticks from 1/minMove, which floats
      // round to 999999999999999900 and then throw "unexpected base" (its docs name this case).
      priceFormat: { type: "custom", formatter: (price: number) => formatPrice(price.toFixed(20)), base: 1e18 },
    });
    chart.current = created;
    return () => {
      created.remove();
      chart.current = null;
      series.current = null;
    };
  }, []);

  useEffect(() => {
    series.current?.setData(
      candles.map((c) => ({
        time: c.time as UTCTimestamp,
        open: Number(c.open),
        high: Number(c.max),
        low: Number(c.min),
        close: Number(c.close),
      })),
    );
  }, [candles]);

  // A figure, not an img: the chart holds a link (TradingView's attribution), and an img's
  // children are presentational, so the link would be hidden from assistive technology.
  return <figure ref={container} className="chart" aria-label={label} />;
}
