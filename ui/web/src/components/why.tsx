// Why one object is unhealthy: the chain from its own problem up to the root cause, one step
// per "caused by", each with the facts it rests on; then what else is wrong with it and what it
// breaks elsewhere. The chain stops, unnamed, where it leaves what the reader may see.
import type { DiagnosisDetail } from '../api/queries/diagnosis';
import { FindingView, Folded } from './finding';
import { FindingItem, Notes } from './root-causes';
import { Empty } from './states';

const EFFECTS_SHOWN = 3;

export function WhyView({ detail, what }: { detail: DiagnosisDetail; what: string }) {
  if (detail.healthy) {
    return (
      <>
        <Empty>Nothing is wrong with this {what} that Capstan can explain.</Empty>
        <Notes notes={detail.notes} />
      </>
    );
  }
  const inChain = new Set(detail.chain.map((f) => f.id));
  const others = detail.findings.filter((f) => !inChain.has(f.id));
  const rootId = detail.root_cause?.id ?? null;
  const ownRoot = detail.chain.length === 1 && rootId !== null;
  return (
    <>
      <p className="muted">
        {ownRoot ? `This ${what}'s own problem is the root cause.` : detail.cause_hidden ? `From this ${what} up to where the cause leaves what you may see.` : `From this ${what} up to the root cause.`}
      </p>
      <ol className="chain">
        {detail.chain.map((f, i) => (
          <li key={f.id}>
            {i > 0 ? <p className="because">because</p> : null}
            <FindingView finding={f} root={f.id === rootId} />
          </li>
        ))}
        {detail.cause_hidden ? (
          <li>
            <p className="because">because</p>
            <p className="finding hidden">Its cause lies outside what you may see: in a namespace you have no access to.</p>
          </li>
        ) : null}
      </ol>
      {others.length > 0 ? (
        <>
          <h3>Also wrong with this {what}</h3>
          <ul className="findings">
            {others.map((f) => (
              <FindingItem key={f.id} finding={f} />
            ))}
          </ul>
        </>
      ) : null}
      {detail.effects.length > 0 ? (
        <>
          <h3>What it causes elsewhere</h3>
          <Folded items={detail.effects} shown={EFFECTS_SHOWN} className="findings" more={(n) => `${n} more ${n === 1 ? 'effect' : 'effects'}`} render={(f) => <FindingItem key={f.id} finding={f} />} />
        </>
      ) : null}
      <Notes notes={detail.notes} />
    </>
  );
}
