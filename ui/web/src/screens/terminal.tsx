// The browser terminal: shells in tabs (xterm.js), each one session on the agent's terminal
// sidecar with its own kubectl credential and namespace. A dropped connection re-attaches to
// the same shell; closing a tab ends its shell. Loaded only when opened (xterm is large).
// docs/terminal.md.
import { useQuery } from '@tanstack/react-query';
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef, useState } from 'react';
import { namespaces } from '../api/queries/cluster';
import { useSearch } from 'wouter';
import { connectTerminal, type PodTarget, type TerminalState } from '../api/terminal-socket';

interface Tab {
  key: number;
  namespace: string;
  /** A pod's container (pod exec, admins) instead of the sidecar's shell. */
  target?: PodTarget;
}

const STATE_WORDS = (state: TerminalState): string => {
  switch (state.kind) {
    case 'connecting':
      return 'Connecting…';
    case 'open':
      return 'Connected';
    case 'reconnecting':
      return 'Connection dropped; re-attaching to the same shell…';
    case 'ended':
      return `The shell ended (${state.reason === 'exited' ? `exit ${String(state.code ?? '?')}` : state.reason.replaceAll('_', ' ')}).`;
    case 'failed':
      return state.message;
  }
};

function Shell({ tab, label, active, onClose }: { tab: Tab; label: string; active: boolean; onClose: () => void }) {
  const host = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<TerminalState>({ kind: 'connecting' });
  useEffect(() => {
    const element = host.current;
    if (element === null) return;
    // Light grey on black: the default foreground, stated so the page's own contrast checks can read it.
    const term = new Terminal({ cursorBlink: true, fontSize: 14, scrollback: 5000, theme: { background: '#000000', foreground: '#e5e5e5' } });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(element);
    fit.fit();
    const connection = connectTerminal({ namespace: tab.namespace, ...(tab.target ? { target: tab.target } : {}), cols: term.cols, rows: term.rows, onOutput: (data) => term.write(data), onState: setState });
    const typed = term.onData((data) => connection.send(data));
    const resized = term.onResize(({ cols, rows }) => connection.resize(cols, rows));
    const observer = new ResizeObserver(() => fit.fit());
    observer.observe(element);
    term.focus();
    return () => {
      observer.disconnect();
      typed.dispose();
      resized.dispose();
      connection.close();
      term.dispose();
    };
  }, [tab]);
  return (
    <div role="tabpanel" id={`terminal-panel-${String(tab.key)}`} aria-labelledby={`terminal-tab-${String(tab.key)}`} hidden={!active}>
      <p className={state.kind === 'failed' ? 'error' : 'muted'} role="status" aria-live="polite">
        {STATE_WORDS(state)} · {tab.target ? `pod ${tab.namespace}/${tab.target.pod}, container ${tab.target.container}` : `namespace ${tab.namespace}`}{' '}
        <button type="button" onClick={onClose}>
          Close {label.toLowerCase()}
        </button>
      </p>
      <div className="terminal-host" ref={host} data-testid="terminal" />
    </div>
  );
}

/** `?namespace=&pod=&container=` (a pod page's *Shell*) opens that container's shell as the first tab. */
function firstTab(search: string): Tab {
  const q = new URLSearchParams(search);
  const namespace = q.get('namespace') ?? 'default';
  const pod = q.get('pod');
  const container = q.get('container');
  return pod !== null && container !== null ? { key: 1, namespace, target: { pod, container } } : { key: 1, namespace };
}

const tabTitle = (t: Tab, i: number): string => (t.target ? `${t.target.pod}/${t.target.container}` : `Shell ${String(i + 1)} (${t.namespace})`);

export function TerminalScreen() {
  const nsList = useQuery(namespaces());
  const search = useSearch();
  const [namespace, setNamespace] = useState('default');
  const [tabs, setTabs] = useState<Tab[]>(() => [firstTab(search)]);
  const [active, setActive] = useState(1);
  const [next, setNext] = useState(2);
  const add = () => {
    setTabs([...tabs, { key: next, namespace }]);
    setActive(next);
    setNext(next + 1);
  };
  const close = (key: number) => {
    const rest = tabs.filter((t) => t.key !== key);
    setTabs(rest);
    if (active === key) setActive(rest.at(-1)?.key ?? 0);
  };
  return (
    <>
      <h1>Terminal</h1>
      <p className="muted">
        A shell with kubectl, as a read-only account of its own. Every command you run is recorded, redacted; its output is not. Copy with the selection, paste with Ctrl+Shift+V or the
        browser&apos;s paste.
      </p>
      <div className="filters">
        <label>
          Namespace for a new tab
          <select value={namespace} onChange={(e) => setNamespace(e.target.value)}>
            <option value="default">default</option>
            {(nsList.data?.namespaces ?? []).filter((n) => n.name !== 'default').map((n) => (
              <option key={n.name} value={n.name}>
                {n.name}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={add}>
          New tab
        </button>
      </div>
      <div role="tablist" aria-label="Terminal sessions" className="terminal-tabs">
        {tabs.map((t, i) => (
          <button key={t.key} type="button" role="tab" id={`terminal-tab-${String(t.key)}`} aria-controls={`terminal-panel-${String(t.key)}`} aria-selected={t.key === active} onClick={() => setActive(t.key)}>
            {tabTitle(t, i)}
          </button>
        ))}
      </div>
      {tabs.length === 0 ? <p className="state empty">No shell open. Open a new tab.</p> : null}
      {tabs.map((t, i) => (
        <Shell key={t.key} tab={t} label={t.target ? `shell in ${t.target.pod}` : `Shell ${String(i + 1)}`} active={t.key === active} onClose={() => close(t.key)} />
      ))}
    </>
  );
}
