// A workload's own security findings, on its page: worst first, a misconfiguration with its
// remediation, a vulnerability with the version that fixes it, asked for by exact workload.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { workloadFindings } from '../api/queries/security';
import { findingsOfWorkload, type WorkloadFinding } from '../security/view';
import { SeverityBadge } from './security-charts';
import { Empty, QueryView } from './states';

function Item({ f }: { f: WorkloadFinding }) {
  return (
    <li className="security-finding" data-severity={f.severity}>
      <SeverityBadge severity={f.severity} />{' '}
      {f.kind === 'misconfig' ? (
        <>
          <code>{f.check_id}</code> {f.message}
          <p className="remediation"><strong>Fix:</strong> {f.remediation}</p>
        </>
      ) : (
        <>
          <code>{f.cve}</code> in {f.pkg} {f.installed_ver} <span className="muted">({f.image})</span>
          <p className="remediation"><strong>Fix:</strong> {f.fixed_ver ? `upgrade ${f.pkg} to ${f.fixed_ver}` : 'no fixed version yet'}</p>
        </>
      )}
    </li>
  );
}

export function WorkloadFindings({ namespace, kind, name }: { namespace: string; kind: string; name: string }) {
  const query = useQuery(workloadFindings(namespace, kind, name));
  return (
    <section aria-labelledby="workload-security">
      <h2 id="workload-security">Security</h2>
      <QueryView query={query} what="security findings">
        {(data) => {
          const rows = findingsOfWorkload(data, { namespace, kind, name });
          return (
            <>
              <p className="muted">
                {rows.length} {rows.length === 1 ? 'finding' : 'findings'} on {kind} {name} ·{' '}
                <Link href={`/security?${new URLSearchParams({ namespace, search: name }).toString()}`}>Open in Security</Link>
              </p>
              {rows.length === 0 ? <Empty>No finding: every check passes here.</Empty> : <ul className="security-findings">{rows.map((f) => <Item key={f.id} f={f} />)}</ul>}
            </>
          );
        }}
      </QueryView>
    </section>
  );
}
