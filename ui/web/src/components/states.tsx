// Loading, empty and error states every screen shares. A 402 becomes an upgrade card naming
// the feature, a 403 shows the agent's reason; a 401 never reaches here (the session gate
// catches it and shows sign-in).
import type { ReactNode } from 'react';
import { ApiError, errorText } from '../api/client';

export function Loading({ what }: { what: string }) {
  return (
    <p className="state" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="state empty">{children}</p>;
}

export function ErrorView({ error, retry }: { error: unknown; retry?: () => void }) {
  if (error instanceof ApiError && error.status === 402) {
    return (
      <section className="card upgrade" role="alert" aria-labelledby="upgrade-title">
        <h2 id="upgrade-title">Upgrade to use {error.body.feature ?? 'this feature'}</h2>
        <p>{error.body.upgrade ?? error.body.message}</p>
      </section>
    );
  }
  if (error instanceof ApiError && error.status === 403) {
    return (
      <section className="card denied" role="alert">
        <h2>Not allowed</h2>
        <p>{error.body.message}</p>
        <p className="muted">
          <code>{error.body.error}</code>
          {error.body.scope ? ` · needs scope ${error.body.scope}` : ''}
        </p>
      </section>
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return (
    <section className="card failed" role="alert">
      <h2>Something went wrong</h2>
      <p>{message}</p>
      {error instanceof ApiError ? <p className="muted"><code>{error.body.error}</code> (HTTP {error.status})</p> : null}
      {retry ? <button type="button" onClick={retry}>Try again</button> : null}
    </section>
  );
}

/** Renders a query's three states around its data. */
export function QueryView<T>({ query, what, children }: { query: { data: T | undefined; error: unknown; isPending: boolean; refetch: () => unknown }; what: string; children: (data: T) => ReactNode }) {
  if (query.isPending) return <Loading what={what} />;
  if (query.error || query.data === undefined) return <ErrorView error={query.error} retry={() => void query.refetch()} />;
  return <>{children(query.data)}</>;
}

/** What a view needs to know about a write started from one of its rows: which row failed and why. */
export interface Failure<V> {
  target: V;
  error: unknown;
}

/** A mutation's failure, if it has one, as its target and error. */
export function failureOf<V>(mutation: { isError: boolean; error: unknown; variables: V | undefined }): Failure<V> | null {
  return mutation.isError && mutation.variables !== undefined ? { target: mutation.variables, error: mutation.error } : null;
}

/** A write's failure, shown beside the control that started it: "Could not revoke ci reader: …". */
export function ActionError({ error, what }: { error: unknown; what: string }) {
  if (error === null || error === undefined) return null;
  return (
    <span role="alert" className="error action-error">
      Could not {what}: {errorText(error)}
    </span>
  );
}
