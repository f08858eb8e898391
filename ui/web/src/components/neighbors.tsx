// What an object is connected to in the cluster model (its owner, what it owns, the Services,
// volumes and nodes it relates to), each a link to its own place in the model.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { ApiError } from '../api/client';
import { entity, type Entity } from '../api/queries/graph';
import { Empty, ErrorView, Loading } from './states';

export function NeighborList({ data }: { data: Entity }) {
  if (data.neighbors.length === 0) return <Empty>Nothing is connected to it.</Empty>;
  return (
    <ul className="neighbors">
      {data.neighbors.map((n) => (
        <li key={`${n.edge.type}-${n.direction}-${n.node.id}`}>
          <span className="muted">{n.direction === 'out' ? n.edge.type : `${n.edge.type} (from)`}</span>{' '}
          <Link href={`/graph/${encodeURIComponent(n.node.id)}`}>
            {n.node.kind} {n.node.namespace ? `${n.node.namespace}/` : ''}
            {n.node.name}
          </Link>
          {n.node.problem ? <span className="flag">{n.node.problem.reason}</span> : null}
        </li>
      ))}
    </ul>
  );
}

/** The neighbours of `id`; a kind the cluster model does not hold (a ConfigMap, an HPA) says so rather than failing. */
export function Neighbors({ id }: { id: string }) {
  const query = useQuery(entity(id));
  if (query.isPending) return <Loading what="related objects" />;
  if (query.isError) return query.error instanceof ApiError && query.error.status === 404 ? <Empty>Not part of the cluster model: no related objects are tracked for it.</Empty> : <ErrorView error={query.error} retry={() => void query.refetch()} />;
  return <NeighborList data={query.data} />;
}
