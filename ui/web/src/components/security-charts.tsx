// The Security screen's small pictures: failed checks per severity as bars, and the score's
// trend as a line. Both carry their numbers as text; the drawing is decoration for sighted
// readers (hidden from screen readers), never the only way to read a value.
import { severityBars, trendLine, trendSummary, type SecuritySeverity, type SeverityCounts, type ScoreTrendPoint } from '../security/view';
import { SortableTable, type Column } from './sortable-table';

/** The badge colour of a severity; the badge always says the severity in words too. */
export const severityTone = (s: SecuritySeverity): 'critical' | 'degraded' | 'unknown' => (s === 'CRITICAL' || s === 'HIGH' ? 'critical' : s === 'MEDIUM' ? 'degraded' : 'unknown');

export function SeverityBadge({ severity }: { severity: SecuritySeverity }) {
  return <span className={`badge ${severityTone(severity)}`}>{severity}</span>;
}

const BAR_WIDTH = 200;
type SeverityBar = ReturnType<typeof severityBars>[number];

/** Severities in their fixed order, worst first: sorting them would only scramble that. */
export function SeverityBars({ counts, caption }: { counts: SeverityCounts; caption: string }) {
  const columns: Column<SeverityBar>[] = [
    { key: 'severity', label: 'Severity', value: (b) => b.severity, rowHeader: true },
    { key: 'count', label: 'Count', value: (b) => b.count, numeric: true },
    {
      key: 'bar',
      label: <span className="visually-hidden">Bar</span>,
      value: () => null,
      // SVG sizes are attributes, not inline styles: the dashboard's CSP forbids those.
      render: (b) => (
        <svg className={`bar ${severityTone(b.severity)}`} width={BAR_WIDTH} height="12" aria-hidden="true" focusable="false">
          <rect x="0" y="0" width={Math.max(b.count > 0 ? 2 : 0, Math.round(b.share * BAR_WIDTH))} height="12" rx="2" />
        </svg>
      ),
    },
  ];
  return <SortableTable rows={severityBars(counts)} columns={columns} rowKey={(b) => b.severity} caption={caption} sortable={false} className="severity-bars" rowAttributes={(b) => ({ 'data-severity': b.severity })} />;
}

const TREND_W = 320;
const TREND_H = 80;

/** The score over the last scans; "No scans yet" until the first one is stored. */
export function ScoreTrend({ points }: { points: readonly ScoreTrendPoint[] }) {
  if (points.length === 0) return <p className="state empty">No scans yet: the trend starts with the first stored scan.</p>;
  const { d, dots } = trendLine(points, TREND_W, TREND_H);
  const summary = trendSummary(points);
  return (
    <figure className="trend">
      <svg role="img" aria-label={`Score trend: ${summary}`} viewBox={`-4 -4 ${TREND_W + 8} ${TREND_H + 8}`} width={TREND_W + 8} height={TREND_H + 8}>
        <line className="axis" x1="0" y1={TREND_H} x2={TREND_W} y2={TREND_H} />
        <line className="axis" x1="0" y1="0" x2={TREND_W} y2="0" />
        <path className="line" d={d} fill="none" />
        {dots.map((p, i) => (
          <circle key={i} className="dot" cx={p.x} cy={p.y} r="2.5" />
        ))}
      </svg>
      <figcaption className="muted">{summary} (scale 0–100)</figcaption>
    </figure>
  );
}
