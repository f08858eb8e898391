// One node of the cluster model: what it is, what is wrong, and everything it connects to,
// each a link to its own view. The stable target of a model node's deep link.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { entity, subgraph } from '../api/queries/graph';
import { NeighborList } from '../components/neighbors';
import { QueryView } from '../components/states';
import { Topology } from '../components/topology';
import { WorkloadFindings } from '../components/workload-findings';
import { WORKLOAD_KINDS } from '../security/view';

export function EntityView({ id }: { id: string }) {
  const query = useQuery(entity(id));
  const graph = useQuery(subgraph(id));
  return (
    <QueryView query={query} what="the object">
      {(data) => (
        <>
          <p className="crumbs">
            {data.node.namespace ? <Link href={`/namespaces/${data.node.namespace}`}>{data.node.namespace}</Link> : 'cluster'} / {data.node.kind}
          </p>
          <h1>
            {data.node.kind} {data.node.name}
          </h1>
          <p>
            Status: {data.node.status}
            {data.node.problem ? (
              <>
                {' '}
                · <span className={`badge ${data.node.problem.severity === 'critical' ? 'critical' : 'degraded'}`}>{data.node.problem.reason}</span>
              </>
            ) : null}
          </p>
          {data.link !== `/graph/${encodeURIComponent(id)}` ? (
            <p>
              <Link href={data.link}>Open its own view</Link>
            </p>
          ) : null}
          <h2>Topology</h2>
          <QueryView query={graph} what="the topology">
            {(g) => <Topology graph={g} />}
          </QueryView>
          {WORKLOAD_KINDS.has(data.node.kind) && data.node.namespace ? <WorkloadFindings namespace={data.node.namespace} kind={data.node.kind} name={data.node.name} /> : null}
          <h2>Connected ({data.neighbors_total})</h2>
          <NeighborList data={data} />
        </>
      )}
    </QueryView>
  );
}
