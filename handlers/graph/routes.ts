// The cluster model: authentication only (topology:read for keys), no AI and no license.
import { entity, searchEntities, subgraph } from './queries.ts';
import { Entity, EntityInput, SearchInput, SearchResult, Subgraph, SubgraphInput } from '../../schema/graph.ts';
import { defineRoute, type Route } from '../route.ts';

const read = { access: { auth: 'credential', role: 'viewer', scope: 'topology:read' }, audit: 'access', rateLimit: 'read', feature: null } as const;

export const graphRoutes: readonly Route[] = [
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
