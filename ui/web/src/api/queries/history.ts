// Resource history (CPU, memory, network) at cluster, namespace or pod scope over a window.
import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type Answer } from '../client';

export type History = Answer<'get_metrics_history'>;
export type HistoryWindow = History['window'];
export type HistoryScope = { scope: 'cluster' | 'namespace' | 'pod'; namespace?: string; name?: string; window: HistoryWindow };

export const history = (q: HistoryScope) => queryOptions({ queryKey: ['history', q], queryFn: () => unwrap(api.GET('/metrics/history', { params: { query: q } })), refetchInterval: 60_000 });
