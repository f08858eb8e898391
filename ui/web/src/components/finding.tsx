// One diagnosis finding as every screen shows it: its severity, its summary, the object it is
// about (a link to that object's view) and the facts it rests on, each linking to the object
// the fact is about. The overview, a namespace and a pod's story all use this one component.
import type { ReactNode } from 'react';
import { Link } from 'wouter';
import type { Evidence, Finding } from '../api/queries/diagnosis';
import { Time } from './time';

type Severity = Finding['severity'];

// The badge colours the rest of the dashboard uses: critical red, warning amber, history grey.
const BADGE: Record<Severity, string> = { critical: 'critical', warning: 'degraded', info: 'unknown' };

export function SeverityBadge({ severity }: { severity: Severity }) {
  return <span className={`badge ${BADGE[severity]}`}>{severity === 'info' ? 'history' : severity}</span>;
}

/** `pod:shop/checkout-1` read as `pod shop/checkout-1`, `node:n1` as `node n1`. */
export function objectLabel(id: string): string {
  const colon = id.indexOf(':');
  return colon > 0 ? `${id.slice(0, colon)} ${id.slice(colon + 1)}` : id;
}

/**
 * The dashboard view of a cluster-model node: a namespace's and a pod's own screens, else the
 * entity view. The same rule as the agent's deep links (linkOf in domain/cluster/node-id.ts),
 * for the ids that come without one (a finding's object, the objects folded into a root).
 */
export function viewOf(id: string): string {
  const colon = id.indexOf(':');
  const kind = id.slice(0, colon);
  const rest = id.slice(colon + 1);
  if (kind === 'namespace' && rest !== '') return `/namespaces/${rest}`;
  const slash = rest.indexOf('/');
  if (kind === 'pod' && slash > 0) return `/namespaces/${rest.slice(0, slash)}/pods/${rest.slice(slash + 1)}`;
  return `/graph/${encodeURIComponent(id)}`;
}

export function ObjectLink({ id }: { id: string }) {
  return <Link href={viewOf(id)}>{objectLabel(id)}</Link>;
}

/** The facts a finding rests on. A fact about an object that does not exist (a missing Secret) has no link. */
export function EvidenceList({ evidence }: { evidence: Evidence[] }) {
  if (evidence.length === 0) return <p className="muted">No evidence you may see.</p>;
  return (
    <ul className="evidence">
      {evidence.map((e, i) => (
        <li key={`${e.node_id}-${i}`}>
          {e.link === null ? <span className="object">{objectLabel(e.node_id)}</span> : <Link href={e.link}>{objectLabel(e.node_id)}</Link>}: {e.fact} <span className="muted">({e.source})</span>
        </li>
      ))}
    </ul>
  );
}

/**
 * A finding: badge, summary, object, code and since, then its evidence, shown or folded
 * (`foldEvidence`, for the many effects under a root). `root` marks the root of a chain;
 * `children` go below (a root's effects, a note on a hidden cause).
 */
export function FindingView({ finding, root = false, foldEvidence = false, children }: { finding: Finding; root?: boolean; foldEvidence?: boolean; children?: ReactNode }) {
  return (
    <div className={`finding ${finding.severity}${root ? ' root' : ''}`} data-finding={finding.id}>
      <p className="finding-head">
        {root ? <span className="root-label">Root cause</span> : null} <SeverityBadge severity={finding.severity} /> <strong>{finding.summary}</strong>
      </p>
      <p className="finding-meta">
        <ObjectLink id={finding.object} /> · <code>{finding.code}</code>
        {finding.since === null ? null : (
          <>
            {' '}
            · since <Time at={finding.since} />
          </>
        )}
      </p>
      {foldEvidence ? (
        <details>
          <summary>Evidence ({finding.evidence.length})</summary>
          <EvidenceList evidence={finding.evidence} />
        </details>
      ) : (
        <EvidenceList evidence={finding.evidence} />
      )}
      {children}
    </div>
  );
}

/** The first `shown` items, the rest behind a disclosure ("7 more effects"), so a root with hundreds of effects stays readable. */
export function Folded<T>({ items, shown, more, render, className }: { items: T[]; shown: number; more: (hidden: number) => string; render: (item: T) => ReactNode; className?: string }) {
  const head = items.slice(0, shown);
  const tail = items.slice(shown);
  return (
    <>
      <ul className={className}>{head.map(render)}</ul>
      {tail.length > 0 ? (
        <details className="more">
          <summary>{more(tail.length)}</summary>
          <ul className={className}>{tail.map(render)}</ul>
        </details>
      ) : null}
    </>
  );
}
