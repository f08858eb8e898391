// The diagnosis: root causes with their effects and evidence, for the whole visible cluster or
// one namespace, and why one object is unhealthy. The agent computes it at most every 5 s, so
// polling faster than that shows nothing new.
import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type Answer } from '../client';

export type Diagnosis = Answer<'get_diagnosis'>;
export type RootCause = Diagnosis['root_causes'][number];
export type Finding = RootCause['finding'];
export type Evidence = Finding['evidence'][number];
export type DiagnosisDetail = Answer<'get_diagnosis_by_id'>;

/** Root causes touching `namespace` (its objects or their effects), or every visible one without it. */
export const diagnosis = (namespace?: string) =>
  queryOptions({
    queryKey: ['diagnosis', 'roots', namespace ?? null],
    queryFn: () => unwrap(api.GET('/diagnosis', { params: { query: namespace === undefined ? {} : { namespace } } })),
    refetchInterval: 15_000,
    staleTime: 5_000,
  });

/** Why one object (a cluster-model node id such as `pod:shop/checkout-1`) is unhealthy, up to its root cause. */
export const why = (id: string) =>
  queryOptions({
    queryKey: ['diagnosis', 'object', id],
    queryFn: () => unwrap(api.GET('/diagnosis/{id}', { params: { path: { id } } })),
    refetchInterval: 15_000,
    staleTime: 5_000,
  });
