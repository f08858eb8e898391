// The terminal's command record keeps the command, never its secrets: rules keyed on the
// command and its flags (a password looks like any word), then redactText's value shapes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactCommand, shellWords } from '../../domain/terminal/command-redaction.ts';

const R = '[REDACTED]';

describe('redactCommand', () => {
  const ROWS: { name: string; line: string; want: string }[] = [
    // curl and wget: the user stays, the password goes.
    { name: 'curl -u user:pass', line: 'curl -u admin:hunter2 https://x.example', want: `curl -u admin:${R} https://x.example` },
    { name: 'curl --user quoted', line: "curl --user 'admin:hunter 2' https://x", want: `curl --user 'admin:${R}' https://x` },
    { name: 'curl -uUSER:PASS glued', line: 'curl -uadmin:hunter2 https://x', want: `curl -uadmin:${R} https://x` },
    { name: 'curl -u token alone', line: 'curl -u sk_live_abc https://x', want: `curl -u ${R} https://x` },
    { name: 'curl Authorization header', line: "curl -H 'Authorization: Bearer abc.def' https://x", want: `curl -H 'Authorization: ${R}' https://x` },
    { name: 'curl Cookie header, double quotes', line: 'curl -H "Cookie: session=abc" https://x', want: `curl -H "Cookie: ${R}" https://x` },
    { name: 'curl harmless header stays', line: "curl -H 'Accept: application/json' https://x", want: "curl -H 'Accept: application/json' https://x" },
    { name: 'curl --header=', line: 'curl --header=X-Api-Key:abc https://x', want: `curl --header=X-Api-Key:${R} https://x` },
    { name: 'curl header with spaces kept', line: "curl -H 'Authorization:   Basic Ym9iOmh1bnRlcjI=' https://x", want: `curl -H 'Authorization:   ${R}' https://x` },
    { name: 'wget --password', line: 'wget --password=hunter2 https://x', want: `wget --password=${R} https://x` },
    // Password flags of other tools.
    { name: 'sshpass -p', line: 'sshpass -p hunter2 ssh root@db', want: `sshpass -p ${R} ssh root@db` },
    { name: 'sshpass -pglued', line: 'sshpass -phunter2 ssh root@db', want: `sshpass -p${R} ssh root@db` },
    { name: 'docker login -p', line: 'docker login -u bob -p hunter2 registry.example', want: `docker login -u bob -p ${R} registry.example` },
    { name: 'docker login --password', line: 'docker login --username bob --password hunter2 r.example', want: `docker login --username bob --password ${R} r.example` },
    // --password-stdin takes no value, but redactText's shape rule hides the word after any
    // --password… flag: a false positive that costs the registry's name, never a secret.
    { name: 'docker --password-stdin: the flag stays', line: 'echo x | docker login --password-stdin r.example', want: `echo x | docker login --password-stdin ${R}` },
    { name: 'redis-cli -a', line: 'redis-cli -h cache -a hunter2 ping', want: `redis-cli -h cache -a ${R} ping` },
    { name: 'mysql -pglued', line: 'mysql -u root -phunter2 shop', want: `mysql -u root -p${R} shop` },
    { name: 'mysql -p alone prompts: the database stays', line: 'mysql -u root -p shop', want: 'mysql -u root -p shop' },
    { name: 'mysqldump --password=', line: 'mysqldump --password=hunter2 shop', want: `mysqldump --password=${R} shop` },
    { name: 'helm repo add --password', line: 'helm repo add acme https://charts.acme --username bob --password hunter2', want: `helm repo add acme https://charts.acme --username bob --password ${R}` },
    { name: 'kubectl --token', line: 'kubectl --token abc123 get pods', want: `kubectl --token ${R} get pods` },
    { name: 'any --client-secret=', line: 'az login --service-principal --client-secret=hunter2', want: `az login --service-principal --client-secret=${R}` },
    { name: 'htpasswd -b', line: 'htpasswd -b /etc/auth bob hunter2', want: `htpasswd -b /etc/auth bob ${R}` },
    // Variables.
    { name: 'assignment before a command', line: 'PGPASSWORD=hunter2 psql -h db', want: `PGPASSWORD=${R} psql -h db` },
    { name: 'export', line: 'export GITHUB_TOKEN=ghx_abc', want: `export GITHUB_TOKEN=${R}` },
    { name: 'harmless assignment stays', line: 'FOO=bar make', want: 'FOO=bar make' },
    // Several commands, paths, sudo.
    { name: 'after && and a path', line: 'cd /tmp && /usr/bin/sshpass -p hunter2 ssh x', want: `cd /tmp && /usr/bin/sshpass -p ${R} ssh x` },
    { name: 'through sudo', line: 'sudo redis-cli -a hunter2', want: `sudo redis-cli -a ${R}` },
    { name: 'in a pipe', line: 'cat f | curl -u a:b -d @- https://x', want: `cat f | curl -u a:${R} -d @- https://x` },
    // What is not a secret stays as typed.
    { name: 'plain kubectl', line: 'kubectl get pods -n shop -o wide', want: 'kubectl get pods -n shop -o wide' },
    { name: 'ssh -p port stays', line: 'ssh -p 2222 bob@host', want: 'ssh -p 2222 bob@host' },
    { name: 'empty', line: '', want: '' },
    // Value shapes from redactText still apply.
    { name: 'a URL with credentials', line: 'git clone https://bob:hunter2@git.example/x.git', want: `git clone https://bob:${R}@git.example/x.git` },
  ];
  for (const row of ROWS) it(row.name, () => assert.equal(redactCommand(row.line), row.want));

  it('is idempotent on every row', () => {
    for (const row of ROWS) assert.equal(redactCommand(redactCommand(row.line)), redactCommand(row.line), row.name);
  });
  it('an unclosed quote runs to the end and is still redacted', () => {
    assert.equal(redactCommand("sshpass -p 'hunter2 ssh x"), `sshpass -p ${R}`);
  });
  it('is linear on a long line', () => {
    const long = `${'a'.repeat(200_000)} "${'\\x'.repeat(50_000)}`;
    const started = performance.now();
    redactCommand(long);
    assert.ok(performance.now() - started < 2000);
  });
});

describe('shellWords', () => {
  it('splits commands and removes quotes, keeping spans', () => {
    const line = `a 'b c' "d\\"e" f\\ g; h|i`;
    const commands = shellWords(line);
    assert.deepEqual(commands.map((c) => c.map((w) => w.text)), [['a', 'b c', 'd"e', 'f g'], ['h'], ['i']]);
    const second = commands[0]?.[1];
    assert.ok(second);
    assert.equal(line.slice(second.start, second.end), "'b c'");
  });
});
