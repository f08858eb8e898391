// The chat dock's data: the exchanges of the current conversation, streamed into place as
// the agent sends them, and the stop button's abort. Kept in the shell, so following a
// citation to another view leaves the conversation where it was.
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useRef, useState } from 'react';
import { askCopilot, conversationsChanged } from '../api/queries/copilot';
import { applyEvent, type Exchange } from './exchange';

export interface Chat {
  exchanges: Exchange[];
  running: boolean;
  ask: (question: string, focus: string | null) => void;
  stop: () => void;
  reset: () => void;
}

export function useChat(): Chat {
  const queryClient = useQueryClient();
  const [exchanges, setExchanges] = useState<Exchange[]>([]);
  const [running, setRunning] = useState(false);
  const conversation = useRef<string | null>(null);
  const abort = useRef<AbortController | null>(null);

  const updateLast = (change: (x: Exchange) => Exchange) => setExchanges((all) => all.map((x, i) => (i === all.length - 1 ? change(x) : x)));

  const ask = useCallback(
    (question: string, focus: string | null) => {
      if (abort.current !== null) return;
      const controller = new AbortController();
      abort.current = controller;
      setRunning(true);
      setExchanges((all) => [...all, { question, focus, tools: [], text: '', answer: null, error: null, stopped: false }]);
      const request = { question, focus, ...(conversation.current === null ? {} : { conversation_id: conversation.current }) };
      askCopilot(request, (event) => updateLast((x) => applyEvent(x, event)), controller.signal)
        .then((answer) => {
          conversation.current = answer.conversation_id;
          void conversationsChanged(queryClient);
        })
        .catch((error: unknown) => {
          if (controller.signal.aborted) updateLast((x) => ({ ...x, stopped: true }));
          else updateLast((x) => ({ ...x, error }));
        })
        .finally(() => {
          abort.current = null;
          setRunning(false);
        });
    },
    [queryClient],
  );

  return {
    exchanges,
    running,
    ask,
    stop: () => abort.current?.abort(),
    reset: () => {
      abort.current?.abort();
      conversation.current = null;
      setExchanges([]);
    },
  };
}
