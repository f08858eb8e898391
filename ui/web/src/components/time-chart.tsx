// A time-series chart on uPlot (small and fast). Null points are gaps, never zeros.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';

export interface Series {
  label: string;
  values: (number | null)[];
  color: string;
}

export function TimeChart({ title, ts, series, format }: { title: string; ts: number[]; series: Series[]; format: (v: number) => string }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const width = () => Math.max(280, el.clientWidth);
    const plot = new uPlot(
      {
        width: width(),
        height: 200,
        series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, spanGaps: false, value: (_u: uPlot, v: number | null) => (v === null ? '–' : format(v)) }))],
        axes: [{ stroke: 'currentColor' }, { stroke: 'currentColor', size: 96, values: (_u: uPlot, splits: number[]) => splits.map(format) }],
        legend: { live: true },
      },
      [ts, ...series.map((s) => s.values)] as uPlot.AlignedData,
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: 200 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [ts, series, format]);
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <div ref={host} role="img" aria-label={`${title} chart`} />
    </figure>
  );
}
