// The pure parts of `make images` (scripts/build-images.ts and scripts/images/); the images
// themselves are proven by tests/integration/images.test.ts.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { lddLibraries } from '../../scripts/images/libraries.ts';
import { sourceUrl } from '../../scripts/images/repository.ts';

it('reads the libraries and the loader from ldd output, and refuses a missing one', () => {
  const output = [
    '/tmp/node:',
    '\tlinux-vdso.so.1 (0x00007ffd)',
    '\tlibstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6 (0x00007f1a)',
    '\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f1b)',
    '\t/lib64/ld-linux-x86-64.so.2 (0x00007f1c)',
    '/tmp/index.node:',
    '\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f1d)',
  ].join('\n');
  assert.deepEqual(lddLibraries(output), ['/lib/x86_64-linux-gnu/libc.so.6', '/lib/x86_64-linux-gnu/libstdc++.so.6', '/lib64/ld-linux-x86-64.so.2']);
  assert.throws(() => lddLibraries('\tlibssl.so.3 => not found\n'), /libssl\.so\.3 => not found/);
});

it('turns a git remote into the source label: https, no credentials, no .git', () => {
  assert.equal(sourceUrl('git@github.com:example/capstan.git'), 'https://github.com/example/capstan');
  assert.equal(sourceUrl('https://user:token@git.example.com/ops/capstan.git'), 'https://git.example.com/ops/capstan');
  assert.equal(sourceUrl('https://github.com/example/capstan'), 'https://github.com/example/capstan');
  assert.equal(sourceUrl(''), undefined);
});
