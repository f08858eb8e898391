// The cluster model: authentication only (topology:read for keys), no AI and no license.
import { entity, searchEntities, subgraph } from './queries.ts';
import { deleteLayout, getLayout, saveLayout } from './layouts.ts';
import { Entity, EntityInput, Layout, LayoutDeleted, LayoutFocusInput, LayoutInput, SearchInput, SearchResult, Subgraph, SubgraphInput } from '../../schema/graph.ts';
import { defineRoute, type Route } from '../route.ts';

const read = { access: { auth: 'credential', role: 'viewer', scope: 'topology:read' }, audit: 'access', rateLimit: 'read', feature: null } as const;

/** Saving a layout changes nothing in the cluster: any signed-in user keeps their own; keys need topology:write. */
const layoutWrite = { access: { auth: 'credential', role: 'viewer', scope: 'topology:write' }, audit: 'http', rateLimit: 'write', feature: null } as const;

export const graphRoutes: readonly Route[] = [
  defineRoute({ ...read, method: 'GET', path: '/topology/layout', summary: 'Your saved layout of the topology around `focus` (node id → position); 404 when you saved none', input: LayoutFocusInput, output: Layout, handler: getLayout }),
  defineRoute({ ...layoutWrite, method: 'PUT', path: '/topology/layout', summary: 'Save your layout around `focus`: {focus, positions} (at most 2000 positions, coordinates within ±1000000; at most 200 layouts)', input: LayoutInput, output: Layout, handler: saveLayout }),
  defineRoute({ ...layoutWrite, method: 'DELETE', path: '/topology/layout', summary: 'Forget your layout around `focus` (the drawing goes back to columns by distance)', input: LayoutFocusInput, output: LayoutDeleted, handler: deleteLayout }),
  defineRoute({
    ...read,
    method: 'GET',
    path: '/graph/subgraph',
    summary: 'The model around `focus` within `hops` (0–4, default 2), cut to a token `budget` (200–100000, default 4000): problems and nearer nodes first, with what was dropped',
    input: SubgraphInput,
    output: Subgraph,
    handler: subgraph,
  }),
  defineRoute({
    ...read,
    method: 'GET',
    path: '/graph/entity/:id',
    summary: 'One node of the model (id URL-encoded, e.g. pod%3Ashop%2Fcheckout-1), its neighbours and its dashboard link',
    input: EntityInput,
    output: Entity,
    handler: entity,
  }),
  defineRoute({
    ...read,
    method: 'GET',
    path: '/graph/search',
    summary: 'Nodes by name substring (q), kind, namespace and label (key or key=value), problems first',
    input: SearchInput,
    namespaceParam: 'namespace',
    output: SearchResult,
    handler: searchEntities,
  }),
];
