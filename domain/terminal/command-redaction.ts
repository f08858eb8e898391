// Redacting a shell command line before it is recorded (the terminal's command record; its
// output is never stored). Value shapes are not enough here: `sshpass -p hunter2` or
// `mysql -phunter2` carry a password that looks like any word, so the line is split into
// words the way a shell would, and rules keyed on the command and its flags say which word
// is the secret. redactText then runs over the result for the shapes it knows (tokens, keys,
// `Authorization: Bearer`, URLs with credentials). It errs towards hiding, like redactText.
import { REDACTED, redactText } from '../redaction/redact.ts';

/** One word of the line: its text after quote removal, and where it sits in the line. */
interface Word {
  text: string;
  start: number;
  end: number;
}

/** A span of the line replaced by `with`. */
interface Cut {
  start: number;
  end: number;
  with: string;
}

const SEPARATORS = new Set([';', '&', '|', '\n', '(', ')']);

/**
 * The line as commands of words: quotes removed, backslashes honoured, `;`, `&&`, `||`, `|`,
 * `&` and newlines ending a command. Linear; an unclosed quote runs to the end of the line.
 */
export function shellWords(line: string): Word[][] {
  const commands: Word[][] = [];
  let words: Word[] = [];
  let text = '';
  let start = -1;
  const flush = (end: number) => {
    if (start >= 0) words.push({ text, start, end });
    text = '';
    start = -1;
  };
  const endCommand = () => {
    if (words.length > 0) commands.push(words);
    words = [];
  };
  let i = 0;
  while (i < line.length) {
    const c = line.charAt(i);
    if (c === ' ' || c === '\t') {
      flush(i);
      i++;
    } else if (SEPARATORS.has(c)) {
      flush(i);
      endCommand();
      i++;
    } else if (c === "'") {
      if (start < 0) start = i;
      const close = line.indexOf("'", i + 1);
      const stop = close < 0 ? line.length : close;
      text += line.slice(i + 1, stop);
      i = stop + 1;
    } else if (c === '"') {
      if (start < 0) start = i;
      i++;
      while (i < line.length && line.charAt(i) !== '"') {
        if (line.charAt(i) === '\\' && i + 1 < line.length) i++;
        text += line.charAt(i);
        i++;
      }
      i++;
    } else if (c === '\\' && i + 1 < line.length) {
      if (start < 0) start = i;
      text += line.charAt(i + 1);
      i += 2;
    } else {
      if (start < 0) start = i;
      text += c;
      i++;
    }
  }
  flush(Math.min(i, line.length));
  endCommand();
  return commands;
}

/** The command's name without its directory (`/usr/bin/curl` → `curl`), past `sudo`, `env`, `exec`, `command`, `time` and leading assignments. */
function commandStart(words: readonly Word[]): number {
  let i = 0;
  while (i < words.length) {
    const w = words[i]?.text ?? '';
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w) || ['sudo', 'env', 'exec', 'command', 'time', 'nohup', 'xargs'].includes(basename(w))) i++;
    else break;
  }
  return i;
}

const basename = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/** Variable names whose value is a secret (`DB_PASSWORD=x cmd`, `export GITHUB_TOKEN=x`). */
const SECRET_NAME = /(?:pass(?:word|wd|phrase)?|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credential|auth)/i;

/** Long flags whose value is a secret, for any command (`--password x`, `--token=x`). */
const SECRET_LONG_FLAGS = new Set(['--password', '--pass', '--passwd', '--token', '--secret', '--api-key', '--apikey', '--access-key', '--secret-key', '--client-secret', '--auth', '--oauth2-bearer', '--bearer-token', '--private-key-passphrase', '--passphrase']);

/** Headers whose value is a credential (`-H 'Authorization: Bearer x'`). */
const SECRET_HEADER = /^\s*(authorization|proxy-authorization|cookie|x-api-key|x-auth-token|private-token|x-vault-token)\s*:\s*/i;

/** Per command: short flags whose next word (or glued rest) is a secret. */
const SECRET_SHORT_FLAGS: Readonly<Record<string, readonly string[]>> = {
  sshpass: ['-p'],
  'redis-cli': ['-a'],
  docker: ['-p'],
  podman: ['-p'],
  nerdctl: ['-p'],
  buildah: ['-p'],
  skopeo: ['-p'],
  helm: ['-p'],
  oras: ['-p'],
  crane: ['-p'],
};

/** The MySQL family takes its password glued (`-phunter2`); `-p dbname` prompts, so the next word is a database, left alone. */
const MYSQL_FAMILY = new Set(['mysql', 'mysqldump', 'mysqladmin', 'mariadb', 'mariadb-dump', 'mysqlimport', 'mysqlshow']);

/** Where `word` keeps a secret: its whole span, or only what follows `keep` characters of its text. */
function hideValue(word: Word, line: string, keepChars: number): Cut {
  if (keepChars === 0) return { start: word.start, end: word.end, with: REDACTED };
  // The kept head is text after quote removal; find it in the raw span (quotes may precede it).
  const raw = line.slice(word.start, word.end);
  const head = word.text.slice(0, keepChars);
  const at = raw.indexOf(head);
  if (at < 0) return { start: word.start, end: word.end, with: REDACTED };
  const quote = raw.charAt(0) === "'" || raw.charAt(0) === '"' ? raw.charAt(0) : '';
  return { start: word.start, end: word.end, with: `${raw.slice(0, at + head.length)}${REDACTED}${quote}` };
}

function cutsFor(words: readonly Word[], line: string): Cut[] {
  const cuts: Cut[] = [];
  const first = commandStart(words);
  // Assignments before the command, and `export NAME=value` / `NAME=value` alone.
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (w === undefined) continue;
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=(.+)$/.exec(w.text);
    const inPosition = i < first || (i > 0 && (words[0]?.text === 'export' || words[0]?.text === 'declare' || words[0]?.text === 'local'));
    if (assignment && inPosition && SECRET_NAME.test(assignment[1] ?? '')) cuts.push(hideValue(w, line, (assignment[1] ?? '').length + 1));
  }
  const name = basename(words[first]?.text ?? '');
  const shortFlags = SECRET_SHORT_FLAGS[name] ?? [];
  for (let i = first + 1; i < words.length; i++) {
    const w = words[i];
    if (w === undefined) continue;
    const next = words[i + 1];
    const eq = w.text.indexOf('=');
    const flag = eq > 0 ? w.text.slice(0, eq) : w.text;
    if (SECRET_LONG_FLAGS.has(flag) || (flag.startsWith('--') && SECRET_NAME.test(flag) && !flag.endsWith('-file') && !flag.endsWith('-stdin'))) {
      if (eq > 0) cuts.push(hideValue(w, line, eq + 1));
      else if (next !== undefined && !next.text.startsWith('-')) {
        cuts.push(hideValue(next, line, 0));
        i++;
      }
      continue;
    }
    // curl and wget: `-u user:secret` / `--user user:secret` keep the user.
    if ((name === 'curl' || name === 'wget') && (w.text === '-u' || w.text === '--user' || w.text === '--proxy-user' || w.text === '-U') && next !== undefined) {
      const colon = next.text.indexOf(':');
      cuts.push(hideValue(next, line, colon < 0 ? 0 : colon + 1));
      i++;
      continue;
    }
    if ((name === 'curl' || name === 'wget') && /^-u./.test(w.text)) {
      const colon = w.text.indexOf(':');
      cuts.push(hideValue(w, line, colon < 0 ? 2 : colon + 1));
      continue;
    }
    // Headers: `-H 'Authorization: Bearer x'`, `--header=Cookie: a=b`.
    if ((w.text === '-H' || w.text === '--header') && next !== undefined) {
      const header = SECRET_HEADER.exec(next.text);
      if (header) cuts.push(hideValue(next, line, header[0].length));
      if (header) i++;
      continue;
    }
    if (w.text.startsWith('--header=') || /^-H./.test(w.text)) {
      const value = w.text.startsWith('--header=') ? w.text.slice('--header='.length) : w.text.slice(2);
      const header = SECRET_HEADER.exec(value);
      if (header) cuts.push(hideValue(w, line, w.text.length - value.length + header[0].length));
      continue;
    }
    if (shortFlags.includes(w.text) && next !== undefined) {
      cuts.push(hideValue(next, line, 0));
      i++;
      continue;
    }
    const glued = shortFlags.find((f) => w.text.startsWith(f) && w.text.length > f.length);
    if (glued !== undefined) {
      cuts.push(hideValue(w, line, glued.length));
      continue;
    }
    if (MYSQL_FAMILY.has(name) && /^-p./.test(w.text)) {
      cuts.push(hideValue(w, line, 2));
      continue;
    }
  }
  // htpasswd -b FILE USER PASSWORD (batch mode takes the password as the last word).
  if (name === 'htpasswd' && words.slice(first + 1).some((w) => /^-[a-zA-Z]*b/.test(w.text))) {
    const last = words[words.length - 1];
    if (last !== undefined && words.length - first >= 4) cuts.push(hideValue(last, line, 0));
  }
  return cuts;
}

/** `line` with every secret the rules or the value shapes find replaced by REDACTED. Never throws. */
export function redactCommand(line: string): string {
  try {
    const cuts = shellWords(line)
      .flatMap((words) => cutsFor(words, line))
      .sort((a, b) => a.start - b.start);
    let out = '';
    let last = 0;
    for (const cut of cuts) {
      if (cut.start < last) continue;
      out += line.slice(last, cut.start) + cut.with;
      last = cut.end;
    }
    return redactText(out + line.slice(last));
  } catch {
    return REDACTED;
  }
}
