import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { namespaces, pods, type PodList } from '../api/queries/cluster';
import { bytes, millicores } from '../components/format';
import { RootCauses } from '../components/root-causes';
import { SortableTable, type Column } from '../components/sortable-table';
import { Empty, QueryView } from '../components/states';
import { DiagnosePanel } from '../copilot/stored-answer';

export function NamespaceList() {
  const query = useQuery(namespaces());
  return (
    <>
      <h1>Namespaces</h1>
      <QueryView query={query} what="namespaces">
        {(data) =>
          data.namespaces.length === 0 ? (
            <Empty>No namespace is visible to Capstan.</Empty>
          ) : (
            <ul className="grid-list">
              {data.namespaces.map((n) => (
                <li key={n.name}>
                  <Link href={`/namespaces/${n.name}`}>{n.name}</Link>
                </li>
              ))}
            </ul>
          )
        }
      </QueryView>
    </>
  );
}

type Pod = PodList['pods'][number];

export function NamespacePods({ namespace }: { namespace: string }) {
  const query = useQuery(pods(namespace));
  const columns: Column<Pod>[] = [
    { key: 'name', label: 'Pod', value: (p) => p.name, render: (p) => <Link href={`/namespaces/${namespace}/pods/${p.name}`}>{p.name}</Link> },
    { key: 'phase', label: 'Phase', value: (p) => p.phase },
    { key: 'ready', label: 'Ready', value: (p) => p.ready },
    { key: 'restarts', label: 'Restarts', value: (p) => p.restarts, numeric: true },
    { key: 'workload', label: 'Workload', value: (p) => `${p.workload_kind}/${p.workload_name}` },
    { key: 'node', label: 'Node', value: (p) => p.node },
    { key: 'age', label: 'Age', value: (p) => (p.created_at ? -Date.parse(p.created_at) : null), render: (p) => p.age },
    { key: 'cpu', label: 'CPU req/limit', value: (p) => p.cpu_request_m, render: (p) => `${millicores(p.cpu_request_m)} / ${millicores(p.cpu_limit_m)}`, numeric: true },
    { key: 'mem', label: 'Memory req/limit', value: (p) => p.mem_request_bytes, render: (p) => `${bytes(p.mem_request_bytes)} / ${bytes(p.mem_limit_bytes)}`, numeric: true },
  ];
  return (
    <>
      <p className="crumbs">
        <Link href="/namespaces">Namespaces</Link> / {namespace}
      </p>
      <h1>{namespace}</h1>
      <p>
        <Link href={`/incidents?namespace=${namespace}`}>Incidents here</Link> · <Link href={`/history?scope=namespace&namespace=${namespace}`}>Resource history</Link>
      </p>
      <RootCauses namespace={namespace} />
      <DiagnosePanel namespace={namespace} />
      <h2>Pods</h2>
      <QueryView query={query} what="pods">
        {(data) => (data.pods.length === 0 ? <Empty>No pods in {namespace}.</Empty> : <SortableTable rows={data.pods} columns={columns} rowKey={(p) => p.name} caption={`${data.total} pods`} searchLabel="Search pods" />)}
      </QueryView>
    </>
  );
}
