// The chat dock: ask about the view you are on, watch the copilot's tool steps and answer
// stream in, follow its citations (only verified ones are links), stop it mid-answer.
import { useState, type SyntheticEvent } from 'react';
import { useLocation } from 'wouter';
import { ErrorView } from '../components/states';
import { AnswerText, CitationSummary } from './answer';
import { focusOf } from './focus';
import type { Exchange, ToolStep } from './exchange';
import type { Chat } from './use-chat';

function argsText(args: unknown): string {
  const text = JSON.stringify(args ?? {});
  return text === '{}' ? '' : text.length > 120 ? `${text.slice(0, 117)}…` : text;
}

function ToolSteps({ tools }: { tools: ToolStep[] }) {
  if (tools.length === 0) return null;
  return (
    <ol className="tool-steps" aria-label="Tool steps">
      {tools.map((t) => (
        <li key={t.id}>
          <code>{t.name}</code> <span className="muted">{argsText(t.args)}</span>{' '}
          {t.ok === null ? <span className="muted">running…</span> : t.ok ? <span className="muted">read {t.chars?.toLocaleString() ?? 0} characters</span> : <span className="error">failed</span>}
        </li>
      ))}
    </ol>
  );
}

function ExchangeView({ exchange, streaming }: { exchange: Exchange; streaming: boolean }) {
  const { answer } = exchange;
  return (
    <li className="exchange">
      <p className="question">
        <span className="visually-hidden">You asked: </span>
        {exchange.question}
        {exchange.focus !== null ? <span className="muted"> (about {exchange.focus})</span> : null}
      </p>
      <ToolSteps tools={exchange.tools} />
      {exchange.text !== '' ? <AnswerText text={exchange.text} citations={answer?.citations ?? null} /> : null}
      {streaming && answer === null ? <p className="muted" role="status">Answering…</p> : null}
      {answer !== null ? (
        <>
          <CitationSummary citations={answer.citations} />
          <p className="muted answer-meta">
            {answer.source === 'model' ? `Answered by ${answer.model ?? 'the model'}` : 'Answered without a model, from the diagnosis'}
            {answer.tool_calls > 0 ? ` · ${answer.tool_calls} ${answer.tool_calls === 1 ? 'tool call' : 'tool calls'}` : ''}
            {answer.finish !== 'stop' ? ` · ended: ${answer.finish}` : ''}
          </p>
          {answer.error !== null ? <p className="error" role="alert">The provider failed: {answer.error}</p> : null}
        </>
      ) : null}
      {exchange.stopped ? <p className="muted" role="status">Stopped. The agent ended the run.</p> : null}
      {exchange.error !== null ? <ErrorView error={exchange.error} /> : null}
    </li>
  );
}

export function ChatDock({ chat, onClose }: { chat: Chat; onClose: () => void }) {
  const [location] = useLocation();
  const viewFocus = focusOf(location);
  const [question, setQuestion] = useState('');
  const [aboutView, setAboutView] = useState(true);
  const focus = aboutView ? viewFocus : null;
  const submit = (e: SyntheticEvent<HTMLFormElement>) => {
    e.preventDefault();
    const q = question.trim();
    if (q === '' || chat.running) return;
    chat.ask(q, focus);
    setQuestion('');
  };
  const last = chat.exchanges.length - 1;
  return (
    <aside className="chat-dock" aria-labelledby="copilot-title">
      <div className="dock-head">
        <h2 id="copilot-title">Copilot</h2>
        <button type="button" onClick={chat.reset} disabled={chat.exchanges.length === 0}>New conversation</button>
        <button type="button" onClick={onClose} aria-label="Close the copilot">×</button>
      </div>
      <p className="muted dock-note">Reads the cluster, never changes it. Facts are cited; links open only what was verified.</p>
      {chat.exchanges.length === 0 ? <p className="muted">Ask what is wrong, why, or what to do.</p> : null}
      <ol className="exchanges" aria-live="polite">
        {chat.exchanges.map((x, i) => (
          <ExchangeView key={i} exchange={x} streaming={chat.running && i === last} />
        ))}
      </ol>
      <form className="stack" onSubmit={submit}>
        <label>
          Ask the copilot
          <textarea rows={3} maxLength={4000} value={question} onChange={(e) => setQuestion(e.target.value)} onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey) {
              e.preventDefault();
              e.currentTarget.form?.requestSubmit();
            }
          }} />
        </label>
        {viewFocus !== null ? (
          <label className="inline">
            <input type="checkbox" checked={aboutView} onChange={(e) => setAboutView(e.target.checked)} /> About {viewFocus}
          </label>
        ) : null}
        <div>
          {chat.running ? (
            <button type="button" onClick={chat.stop}>Stop</button>
          ) : (
            <button type="submit" disabled={question.trim() === ''}>Ask</button>
          )}
        </div>
      </form>
    </aside>
  );
}
