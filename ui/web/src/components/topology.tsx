// The cluster model around one object, drawn with React Flow: pan, zoom, and a click opens a
// node's own view. Laid out in columns by distance from the focus, problems on top; nodes can be
// dragged, and the arrangement saved as your own layout for this focus (and forgotten again).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Background, Controls, ReactFlow, useNodesState, type Edge, type Node } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useEffect, useMemo } from 'react';
import { useLocation } from 'wouter';
import { forgetLayout, layout, saveLayout, type Subgraph } from '../api/queries/graph';
import { ActionError } from './states';

const COLUMN = 300;
const ROW = 72;

export function Topology({ graph }: { graph: Subgraph }) {
  const [, navigate] = useLocation();
  const client = useQueryClient();
  const saved = useQuery(layout(graph.focus));
  const save = useMutation(saveLayout(client));
  const forget = useMutation(forgetLayout(client));
  const { nodes: drawn, edges } = useMemo(() => {
    // Each column is centred on the focus's row, so the focus sits in the middle of the picture.
    const perColumn = new Map<number, number>();
    for (const n of graph.nodes) perColumn.set(n.distance, (perColumn.get(n.distance) ?? 0) + 1);
    const rows = new Map<number, number>();
    const nodes: Node[] = graph.nodes.map((n) => {
      const row = rows.get(n.distance) ?? 0;
      rows.set(n.distance, row + 1);
      return {
        id: n.id,
        position: saved.data?.positions[n.id] ?? { x: n.distance * COLUMN, y: (row - ((perColumn.get(n.distance) ?? 1) - 1) / 2) * ROW },
        data: { label: `${n.kind} ${n.name}${n.problem ? ` ⚠ ${n.problem.reason}` : ''}` },
        className: `topo-node${n.problem || n.kind === 'Problem' ? ' problem' : ''}${n.distance === 0 ? ' focus' : ''}`,
        ariaLabel: `${n.kind} ${n.namespace ? `${n.namespace}/` : ''}${n.name}`,
      };
    });
    const edges: Edge[] = graph.edges.map((e, i) => ({ id: `${e.from}-${e.type}-${e.to}-${i}`, source: e.from, target: e.to, label: e.type }));
    return { nodes, edges };
  }, [graph, saved.data]);
  // Dragged positions live here until saved; a new graph or layout starts from the drawing again.
  const [nodes, setNodes, onNodesChange] = useNodesState(drawn);
  useEffect(() => setNodes(drawn), [drawn, setNodes]);
  return (
    <>
      <div className="topology" role="figure" aria-label={`Topology around ${graph.focus}: ${graph.nodes.length} objects`}>
        <ReactFlow nodes={nodes} edges={edges} onNodesChange={onNodesChange} fitView minZoom={0.1} nodesConnectable={false} nodesDraggable onNodeClick={(_e, n) => navigate(`/graph/${encodeURIComponent(n.id)}`)} proOptions={{ hideAttribution: true }}>
          <Background />
          <Controls showInteractive={false} />
        </ReactFlow>
        {graph.truncated ? (
          <p className="muted">
            {graph.dropped.nodes} more objects within {graph.hops} hops are not drawn (token budget {graph.budget}).
          </p>
        ) : null}
      </div>
      <p>
        <button type="button" disabled={save.isPending} onClick={() => save.mutate({ focus: graph.focus, positions: Object.fromEntries(nodes.map((n) => [n.id, n.position])) })}>
          Save this layout
        </button>{' '}
        {saved.data ? (
          <button type="button" disabled={forget.isPending} onClick={() => forget.mutate(graph.focus)}>
            Forget my layout
          </button>
        ) : null}{' '}
        {save.isSuccess && saved.data ? <span role="status">Saved: this view opens as you left it.</span> : null}
      </p>
      <ActionError error={save.error ?? forget.error} what="save the layout" />
    </>
  );
}
