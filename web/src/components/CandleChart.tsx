import { CandlestickSeries, createChart, type IChartApi, type ISeriesApi, type UTCTimestamp } from "lightweight-charts";
import { useEffect, useRef } from "react";
import type { Candle } from "../lib/candles.ts";
import { chartFrame, type Framed, MIN_SLOTS, reframes } from "../lib/chart-frame.ts";
import { formatPrice } from "../lib/format.ts";

/**
 * TradingView's lightweight-charts (its attribution logo stays on, and the footer links to it).
 * Candles stay decimal strings everywhere else; they become numbers only here, for drawing.
 * `digitsPrice`, an exchange pair's price decimals, makes its tick the price scale's step: without
 * it the scale steps by 1e-18 and a narrow range (ETH_USDT's 2990.97 .. 2991.05) had four lines
 * all reading 2,991, or none at all for one price.
 */
export function CandleChart({
  candles,
  label,
  digitsPrice,
}: {
  candles: Candle[];
  label: string;
  digitsPrice?: number;
}) {
  const container = useRef<HTMLElement>(null);
  const chart = useRef<IChartApi | null>(null);
  const series = useRef<ISeriesApi<"Candlestick"> | null>(null);
  const framed = useRef<Framed | null>(null);

  useEffect(() => {
    if (!container.current) return;
    const { formatter, base } = priceScaleFormat(digitsPrice);
    const created = createChart(container.current, {
      autoSize: true,
      layout: { background: { color: "#161b22" }, textColor: "#c9d1d9", attributionLogo: true },
      grid: { vertLines: { color: "#21262d" }, horzLines: { color: "#21262d" } },
      // A gap after the newest candle, so it is not flush with the price scale when fitted.
      timeScale: { timeVisible: true, secondsVisible: false, rightOffset: 2 },
      localization: { priceFormatter: formatter },
    });
    series.current = created.addSeries(CandlestickSeries, {
      upColor: "#3fb950",
      downColor: "#ff7b72",
      borderVisible: false,
      wickUpColor: "#3fb950",
      wickDownColor: "#ff7b72",
      priceFormat: { type: "custom", formatter, base },
    });
    chart.current = created;
    // A range in bars becomes pixels at the width the chart has when it applies it: framed before
    // the chart is first laid out, it would be framed for no width. Few candles keep their layout
    // as the width changes too; a full chart keeps what a person scrolled to.
    let laidOut = false;
    const onResize = (width: number) => {
      if (width <= 0 || !framed.current || (laidOut && framed.current.count >= MIN_SLOTS)) return;
      laidOut = true;
      applyFrame(created, framed.current.count);
    };
    created.timeScale().subscribeSizeChange(onResize);
    return () => {
      created.timeScale().unsubscribeSizeChange(onResize);
      framed.current = null;
      created.remove();
      chart.current = null;
      series.current = null;
    };
  }, [digitsPrice]);

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
    const next = { count: candles.length, first: candles[0]?.time ?? 0 };
    if (chart.current && reframes(framed.current, next)) applyFrame(chart.current, next.count);
    if (next.count > 0) framed.current = next;
  }, [candles]);

  // A figure, not an img: the chart holds a link (TradingView's attribution), and an img's
  // children are presentational, so the link would be hidden from assistive technology.
  return <figure ref={container} className="chart" aria-label={label} />;
}

/**
 * The price scale's step (`base` = 1 / step) and labels: the pair's tick, labels to its digits;
 * else 1e-18 and labels to 4 significant digits. `base` rather than minMove: the chart derives its
 * ticks from 1/minMove, which floats round (1e-18 to 999999999999999900, then it throws "unexpected
 * base"; its docs name this case), while 10^digits is exact.
 */
export function priceScaleFormat(digitsPrice?: number): { base: number; formatter: (price: number) => string } {
  if (digitsPrice === undefined) return { base: 1e18, formatter: (price) => formatPrice(price.toFixed(20)) };
  return { base: 10 ** digitsPrice, formatter: (price) => formatPrice(price.toFixed(digitsPrice), 40) };
}

function applyFrame(chart: IChartApi, count: number) {
  const frame = chartFrame(count);
  if (frame.kind === "fit") chart.timeScale().fitContent();
  else chart.timeScale().setVisibleLogicalRange({ from: frame.from, to: frame.to });
}
