// Root causes first: what is broken at the source, each with the problems it causes elsewhere,
// so nobody chases twenty crashing pods when one Secret is missing. The overview shows every
// visible root cause, a namespace only those touching it.
import { useQuery } from '@tanstack/react-query';
import { diagnosis, type Diagnosis, type Finding, type RootCause } from '../api/queries/diagnosis';
import { Folded, FindingView, ObjectLink } from './finding';
import { Empty, QueryView } from './states';
import { Time } from './time';

const EFFECTS_SHOWN = 3;
const ALSO_SHOWN = 5;

/** The "Root causes" section: the diagnosis of the whole visible cluster, or of one namespace. */
export function RootCauses({ namespace }: { namespace?: string }) {
  const query = useQuery(diagnosis(namespace));
  return (
    <section aria-labelledby="root-causes" className="root-causes">
      <h2 id="root-causes">Root causes</h2>
      <QueryView query={query} what="root causes">
        {(data) => <RootCauseList data={data} />}
      </QueryView>
    </section>
  );
}

/** Analyzers that said nothing because RBAC refuses what they read: not checked is not healthy. */
function Silent({ silent }: { silent: Diagnosis['silent'] }) {
  if (silent.length === 0) return null;
  return (
    <ul className="notices">
      {silent.map((s) => (
        <li key={s.resource} className="muted">
          Not checked: {s.reason.replace(/\.$/, '')}.
        </li>
      ))}
    </ul>
  );
}

/** A finding in a list, its evidence folded. */
export function FindingItem({ finding }: { finding: Finding }) {
  return (
    <li>
      <FindingView finding={finding} foldEvidence />
    </li>
  );
}

function RootCauseItem({ cause }: { cause: RootCause }) {
  const { finding, effects, also } = cause;
  return (
    <li>
      <FindingView finding={finding} root>
        {also.length > 0 ? (
          <div className="also">
            <p>The same on {also.length === 1 ? '1 more object' : `${also.length} more objects`}:</p>
            <Folded
              items={also}
              shown={ALSO_SHOWN}
              className="inline-list"
              more={(n) => `${n} more`}
              render={(id) => (
                <li key={id}>
                  <ObjectLink id={id} />
                </li>
              )}
            />
          </div>
        ) : null}
        {effects.length > 0 ? (
          <div className="effects">
            <p>
              Causes {effects.length === 1 ? '1 problem' : `${effects.length} problems`}
              {effects.length > 1 ? ', nearest first' : ''}:
            </p>
            <Folded items={effects} shown={EFFECTS_SHOWN} className="findings" more={(n) => `${n} more ${n === 1 ? 'effect' : 'effects'}`} render={(f) => <FindingItem key={f.id} finding={f} />} />
          </div>
        ) : null}
      </FindingView>
    </li>
  );
}

/** History, never a problem: folded away, there for whoever asks what happened before. */
export function Notes({ notes }: { notes: Finding[] }) {
  if (notes.length === 0) return null;
  return (
    <details className="notes">
      <summary>History: {notes.length === 1 ? '1 note' : `${notes.length} notes`} on conditions that have passed</summary>
      <ul className="findings">
        {notes.map((f) => (
          <FindingItem key={f.id} finding={f} />
        ))}
      </ul>
    </details>
  );
}

export function RootCauseList({ data }: { data: Diagnosis }) {
  const where = data.namespace === null ? '' : ` in ${data.namespace}`;
  const nothing = data.root_causes.length === 0 && data.hidden_causes.length === 0;
  return (
    <>
      <p className="muted">
        {data.root_causes.length === 1 ? '1 root cause' : `${data.root_causes.length} root causes`}
        {where} · {data.total_findings} {data.total_findings === 1 ? 'finding' : 'findings'} · computed <Time at={data.generated_at} />
      </p>
      <Silent silent={data.silent} />
      {nothing ? (
        <Empty>
          No root causes{where}: nothing is broken that Capstan can explain.
        </Empty>
      ) : null}
      {data.root_causes.length > 0 ? (
        <ol className="findings roots">
          {data.root_causes.map((c) => (
            <RootCauseItem key={c.finding.id} cause={c} />
          ))}
        </ol>
      ) : null}
      {data.hidden_causes.length > 0 ? (
        <>
          <h3>Cause outside what you may see</h3>
          <p className="muted">These problems are caused by something in a namespace you may not see; ask someone who can.</p>
          <ul className="findings">
            {data.hidden_causes.map(({ effect }) => (
              <FindingItem key={effect.id} finding={effect} />
            ))}
          </ul>
        </>
      ) : null}
      <Notes notes={data.notes} />
    </>
  );
}
