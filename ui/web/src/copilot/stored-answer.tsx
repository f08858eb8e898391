// A stored copilot answer (a Diagnose result or an SRE report) in full, and the Diagnose panel
// of a namespace's view, which asks for a new one.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { diagnose, type StoredAnswer } from '../api/queries/copilot';
import { ErrorView } from '../components/states';
import { Time } from '../components/time';
import { AnswerText, CitationSummary } from './answer';

function SourceLine({ answer }: { answer: StoredAnswer }) {
  return (
    <p className="muted">
      {answer.kind === 'diagnose' ? `Diagnose of ${answer.scope}` : 'SRE report'} by {answer.actor}, <Time at={answer.created_at} /> ·{' '}
      {answer.source === 'model' ? `answered by ${answer.model ?? 'the model'}` : 'produced without a model, from the diagnosis'}
      {answer.finish !== 'stop' ? ` · ended: ${answer.finish}` : ''}
    </p>
  );
}

/** One stored answer in full: its text with citations (verified ones linked) and where it came from. */
export function StoredAnswerBody({ answer }: { answer: StoredAnswer }) {
  return (
    <article className="card stored-answer" aria-label={answer.kind === 'diagnose' ? `Diagnose of ${answer.scope}` : 'SRE report'}>
      <SourceLine answer={answer} />
      <AnswerText text={answer.answer} citations={answer.citations} />
      <CitationSummary citations={answer.citations} />
      {answer.error !== null ? <p className="error" role="alert">The provider failed: {answer.error}</p> : null}
    </article>
  );
}

/** On a namespace's view: ask the copilot for a Diagnose, see it here, and find the earlier ones. */
export function DiagnosePanel({ namespace }: { namespace: string }) {
  const client = useQueryClient();
  const run = useMutation(diagnose(client));
  return (
    <section aria-labelledby="diagnose-title">
      <h2 id="diagnose-title">Diagnose with the copilot</h2>
      <p>
        <button type="button" onClick={() => run.mutate(namespace)} disabled={run.isPending}>
          {run.isPending ? `Diagnosing ${namespace}…` : `Diagnose ${namespace}`}
        </button>{' '}
        <Link href={`/copilot/answers?kind=diagnose&scope=${namespace}`}>Earlier diagnoses of {namespace}</Link>
      </p>
      {run.isError ? <ErrorView error={run.error} /> : null}
      {run.data ? <StoredAnswerBody answer={run.data} /> : null}
    </section>
  );
}
