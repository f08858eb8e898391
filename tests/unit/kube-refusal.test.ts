// What an API server's refusal says (runtime/kube/client.ts refusalMessage), one table for
// every reader and writer of the API server: the Status message, plain text, or the status line.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { refusalMessage } from '../../runtime/kube/client.ts';

describe('refusalMessage', () => {
  const rows: [string, string, string][] = [
    ['a Status object', JSON.stringify({ kind: 'Status', message: 'pods "x" is forbidden' }), 'pods "x" is forbidden'],
    ['JSON without a message', '{"kind":"Status"}', 'Forbidden'],
    ['a message that is not text', '{"message":42}', 'Forbidden'],
    ['plain text', '  404 page not found\n', '404 page not found'],
    ['nothing', '', 'Forbidden'],
    ['a long page, cut', 'x'.repeat(2000), 'x'.repeat(500)],
  ];
  for (const [name, body, want] of rows) it(name, () => assert.equal(refusalMessage(body, 'Forbidden'), want));
});
