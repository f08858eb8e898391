// The command record reads shell-integration marks from the PTY's output: split anywhere,
// escaped as VS Code's 633 sequence, and only with the session's nonce.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMarkReader, escapeForMark, MAX_MARK } from '../../domain/terminal/shell-marks.ts';

const NONCE = 'n0nce42';
const command = (line: string, nonce = NONCE) => `\u001b]633;E;${escapeForMark(line)};${nonce}\u0007`;
const finished = (status: number) => `\u001b]133;D;${status}\u0007`;

describe('createMarkReader', () => {
  it('reads a command and its exit status from output around them', () => {
    const read = createMarkReader(NONCE);
    assert.deepEqual(read(`$ ${command('kubectl get pods')}NAME READY\r\nweb 1/1\r\n${finished(0)}$ `), [
      { kind: 'command', command: 'kubectl get pods' },
      { kind: 'finished', exitCode: 0 },
    ]);
  });
  it('a mark split at every position reads the same', () => {
    const stream = `out ${command('echo "a;b" \\ c')} more ${finished(130)}`;
    for (let cut = 0; cut <= stream.length; cut++) {
      const read = createMarkReader(NONCE);
      assert.deepEqual([...read(stream.slice(0, cut)), ...read(stream.slice(cut))], [
        { kind: 'command', command: 'echo "a;b" \\ c' },
        { kind: 'finished', exitCode: 130 },
      ], `cut at ${cut}`);
    }
  });
  it('ignores a mark without the session nonce (a crafted file printed by cat)', () => {
    const read = createMarkReader(NONCE);
    assert.deepEqual(read(command('rm -rf / # forged', 'guess')), []);
    assert.deepEqual(read(command('rm -rf / # forged', '')), []);
  });
  it('the ST terminator works as BEL does; other OSC sequences are skipped', () => {
    const read = createMarkReader(NONCE);
    assert.deepEqual(read(`\u001b]0;title\u0007\u001b]633;E;ls;${NONCE}\u001b\\`), [{ kind: 'command', command: 'ls' }]);
  });
  it('a control character in a command round-trips', () => {
    const read = createMarkReader(NONCE);
    assert.deepEqual(read(command('printf "a\tb\u001b"')), [{ kind: 'command', command: 'printf "a\tb\u001b"' }]);
  });
  it('never holds more than MAX_MARK characters of an unfinished mark', () => {
    const read = createMarkReader(NONCE);
    assert.deepEqual(read(`\u001b]633;E;${'x'.repeat(MAX_MARK + 10)}`), []);
    assert.deepEqual(read(`;${NONCE}\u0007`), [], 'the overlong mark was dropped, not completed');
    assert.deepEqual(read(command('ls')), [{ kind: 'command', command: 'ls' }]);
  });
  it('an unknown exit status is null', () => {
    assert.deepEqual(createMarkReader(NONCE)('\u001b]133;D\u0007'), [{ kind: 'finished', exitCode: null }]);
  });
});
