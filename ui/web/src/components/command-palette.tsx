// The command palette (Ctrl/⌘-K, or `:` anywhere outside a text field): type to jump to a
// screen, a namespace or any object of the cluster; `:deploy`, `:po`, `:ns`... jump to a kind.
// A modal dialog with a combobox and its listbox (the ARIA pattern), arrows to move, Enter to go.
import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { namespaces } from '../api/queries/cluster';
import { search } from '../api/queries/graph';
import { paletteItems, type PaletteItem } from './palette-items';

/** Whether a key press belongs to what the person is typing somewhere else. */
export function typingIn(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

function useDebounced(value: string, ms: number): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

function Palette({ screens, initial, onClose }: { screens: readonly { label: string; href: string }[]; initial: string; onClose: () => void }) {
  const [, navigate] = useLocation();
  const [text, setText] = useState(initial);
  const [active, setActive] = useState(0);
  const dialog = useRef<HTMLDialogElement>(null);
  const listId = useId();
  const query = useDebounced(text.trim(), 150);
  const objects = useQuery({ ...search(query), enabled: query.length >= 2 && !query.startsWith(':') });
  const ns = useQuery(namespaces());
  const found: PaletteItem[] = (objects.data?.results ?? []).map((n) => ({ id: n.id, label: n.namespace ? `${n.namespace}/${n.name}` : n.name, group: n.kind, href: n.link }));
  const items = paletteItems(text, screens, (ns.data?.namespaces ?? []).map((n) => n.name), found);
  const current = Math.min(active, Math.max(0, items.length - 1));

  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  const go = (item: PaletteItem | undefined) => {
    if (item === undefined) return;
    onClose();
    navigate(item.href);
  };
  return (
    <dialog ref={dialog} className="palette" aria-label="Go to" onClose={onClose} onCancel={onClose}>
      <input
        autoFocus
        role="combobox"
        aria-expanded="true"
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={items[current] ? `${listId}-${current}` : undefined}
        aria-label="Go to a screen, namespace or object (:deploy, :po, :ns for a kind)"
        placeholder="Go to… (:deploy, :po, :ns)"
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setActive(0);
        }}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') setActive((current + 1) % Math.max(1, items.length));
          else if (e.key === 'ArrowUp') setActive((current - 1 + items.length) % Math.max(1, items.length));
          else if (e.key === 'Enter') go(items[current]);
          else return;
          e.preventDefault();
        }}
      />
      <ul id={listId} role="listbox" aria-label="Matches">
        {items.map((item, i) => (
          <li key={item.id} id={`${listId}-${i}`} role="option" aria-selected={i === current} className={i === current ? 'active' : undefined} onMouseDown={(e) => e.preventDefault()} onClick={() => go(item)}>
            <span className="muted">{item.group}</span> {item.label}
          </li>
        ))}
      </ul>
      {items.length === 0 ? <p className="muted">Nothing matches{objects.isFetching ? ' yet' : ''}.</p> : null}
      {objects.isError ? <p className="error">The search failed: {objects.error.message}</p> : null}
    </dialog>
  );
}

/** Listens for Ctrl/⌘-K and `:` (opening the palette, `open` being what it starts with) and `/` (the page's filter box, marked `data-filter`). */
export function CommandPalette({ screens, open, setOpen }: { screens: readonly { label: string; href: string }[]; open: string | null; setOpen: (initial: string | null) => void }) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        setOpen('');
      } else if (!typingIn(e.target) && !e.ctrlKey && !e.metaKey && !e.altKey && e.key === ':') {
        e.preventDefault();
        setOpen(':');
      } else if (!typingIn(e.target) && !e.ctrlKey && !e.metaKey && !e.altKey && e.key === '/') {
        const filter = document.querySelector<HTMLElement>('[data-filter]');
        if (filter) {
          e.preventDefault();
          filter.focus();
        }
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [setOpen]);
  return open === null ? null : <Palette screens={screens} initial={open} onClose={() => setOpen(null)} />;
}
