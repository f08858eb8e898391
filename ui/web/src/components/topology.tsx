// The cluster model around one object, drawn with React Flow: pan, zoom, and a click opens a
// node's own view. Laid out in columns by distance from the focus, problems on top.
import { Background, Controls, ReactFlow, type Edge, type Node } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useMemo } from 'react';
import { useLocation } from 'wouter';
import type { Subgraph } from '../api/queries/graph';

const COLUMN = 300;
const ROW = 72;

export function Topology({ graph }: { graph: Subgraph }) {
  const [, navigate] = useLocation();
  const { nodes, edges } = useMemo(() => {
    // Each column is centred on the focus's row, so the focus sits in the middle of the picture.
    const perColumn = new Map<number, number>();
    for (const n of graph.nodes) perColumn.set(n.distance, (perColumn.get(n.distance) ?? 0) + 1);
    const rows = new Map<number, number>();
    const nodes: Node[] = graph.nodes.map((n) => {
      const row = rows.get(n.distance) ?? 0;
      rows.set(n.distance, row + 1);
      return {
        id: n.id,
        position: { x: n.distance * COLUMN, y: (row - ((perColumn.get(n.distance) ?? 1) - 1) / 2) * ROW },
        data: { label: `${n.kind} ${n.name}${n.problem ? ` ⚠ ${n.problem.reason}` : ''}` },
        className: `topo-node${n.problem || n.kind === 'Problem' ? ' problem' : ''}${n.distance === 0 ? ' focus' : ''}`,
        ariaLabel: `${n.kind} ${n.namespace ? `${n.namespace}/` : ''}${n.name}`,
      };
    });
    const edges: Edge[] = graph.edges.map((e, i) => ({ id: `${e.from}-${e.type}-${e.to}-${i}`, source: e.from, target: e.to, label: e.type }));
    return { nodes, edges };
  }, [graph]);
  return (
    <div className="topology" role="figure" aria-label={`Topology around ${graph.focus}: ${graph.nodes.length} objects`}>
      <ReactFlow nodes={nodes} edges={edges} fitView minZoom={0.1} nodesConnectable={false} nodesDraggable={false} onNodeClick={(_e, n) => navigate(`/graph/${encodeURIComponent(n.id)}`)} proOptions={{ hideAttribution: true }}>
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
      {graph.truncated ? (
        <p className="muted">
          {graph.dropped.nodes} more objects within {graph.hops} hops are not drawn (token budget {graph.budget}).
        </p>
      ) : null}
    </div>
  );
}
