// An answer of the copilot, rendered from tokens (./answer-text.ts): a verified citation is a
// link to its object's view; one the copilot was never shown is marked and never linked.
import { Fragment } from 'react';
import { Link } from 'wouter';
import { answerBlocks, type CitationRef, type Inline } from './answer-text';

function InlineView({ token }: { token: Inline }) {
  switch (token.kind) {
    case 'text':
      return <>{token.text}</>;
    case 'bold':
      return <strong>{token.text}</strong>;
    case 'code':
      return <code>{token.text}</code>;
    case 'em':
      return <em>{token.text}</em>;
    case 'cite': {
      const c = token.citation;
      if (c?.verified && c.link !== null) {
        return (
          <Link className="cite" href={c.link}>
            {token.id}
          </Link>
        );
      }
      if (c !== null && !c.verified) {
        return (
          <span className="cite unverified" title="Unverified: this run never showed the copilot this object, so it is not linked">
            {token.id} <span className="tag">unverified</span>
          </span>
        );
      }
      return <span className="cite pending">{token.id}</span>;
    }
  }
}

/** `citations` null while the answer streams: ids show as plain text until the server has checked them. */
export function AnswerText({ text, citations }: { text: string; citations: readonly CitationRef[] | null }) {
  const blocks = answerBlocks(text, citations);
  return (
    <div className="answer">
      {blocks.map((b, i) => {
        const inline = b.inline.map((t, j) => <InlineView key={j} token={t} />);
        if (b.kind === 'paragraph') return <p key={i}>{inline}</p>;
        return (
          <p key={i} className={`item depth-${b.depth}`}>
            <span className="bullet" aria-hidden="true">{b.number === null ? '•' : `${b.number}.`}</span> {inline}
          </p>
        );
      })}
    </div>
  );
}

/** How many citations there are and how many the server could not verify, in words. */
export function CitationSummary({ citations }: { citations: readonly CitationRef[] }) {
  if (citations.length === 0) return <p className="muted">No citations.</p>;
  const unverified = citations.filter((c) => !c.verified).length;
  return (
    <p className="muted">
      {citations.length} {citations.length === 1 ? 'citation' : 'citations'}
      {unverified > 0 ? <Fragment>, {unverified} unverified (not linked)</Fragment> : ', all verified'}
    </p>
  );
}
