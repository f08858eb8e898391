// Shell-integration marks in a terminal's output: how the command record learns what was run,
// from the shell itself rather than guessed from keystrokes (which miss history recall,
// completion and line editing). The rc file the sidecar controls makes bash print, before
// each command runs, `ESC ] 633 ; E ; <command line> ; <nonce> BEL` (VS Code's sequence:
// `\` written `\\`, `;` and control characters as `\xNN`), and after it
// `ESC ] 133 ; D ; <exit status> BEL`. The nonce is per session and lives in an unexported
// shell variable: a mark printed by `cat` of a crafted file does not carry it and is ignored.
//
// The reader takes the PTY's output in whatever chunks it arrives (a mark may be split) and
// never holds more than MAX_MARK characters of an unfinished one.

export type ShellMark = { kind: 'command'; command: string } | { kind: 'finished'; exitCode: number | null };

/** The longest mark kept while waiting for its end; a longer one is dropped (a command line is cut by the shell well before). */
export const MAX_MARK = 16 * 1024;

const OSC = '\u001b]';
const BEL = '\u0007';
const ST = '\u001b\\';

/** `\\` and `\xNN` back to characters. */
function unescape(value: string): string {
  return value.replace(/\\(\\|x([0-9a-fA-F]{2}))/g, (_all, what: string, hex: string | undefined) => (hex === undefined ? what : String.fromCharCode(parseInt(hex, 16))));
}

function parseMark(body: string, nonce: string): ShellMark | null {
  if (body.startsWith('633;E;')) {
    const rest = body.slice('633;E;'.length);
    const cut = rest.lastIndexOf(';');
    if (cut < 0 || rest.slice(cut + 1) !== nonce) return null;
    return { kind: 'command', command: unescape(rest.slice(0, cut)) };
  }
  if (body === '133;D' || body.startsWith('133;D;')) {
    const status = body.slice('133;D;'.length);
    return { kind: 'finished', exitCode: /^[0-9]{1,3}$/.test(status) ? Number(status) : null };
  }
  return null;
}

/** A reader for one session: feed it each output chunk, get the marks completed in it. */
export function createMarkReader(nonce: string): (chunk: string) => ShellMark[] {
  let pending = '';
  return (chunk) => {
    const text = pending + chunk;
    pending = '';
    const marks: ShellMark[] = [];
    let from = 0;
    for (;;) {
      const start = text.indexOf(OSC, from);
      if (start < 0) {
        // A lone ESC at the very end may be the start of the next mark.
        if (text.endsWith('\u001b')) pending = '\u001b';
        break;
      }
      const bodyStart = start + OSC.length;
      const bel = text.indexOf(BEL, bodyStart);
      const st = text.indexOf(ST, bodyStart);
      const end = bel < 0 ? st : st < 0 ? bel : Math.min(bel, st);
      if (end < 0) {
        if (text.length - start <= MAX_MARK) pending = text.slice(start);
        break;
      }
      const mark = parseMark(text.slice(bodyStart, end), nonce);
      if (mark !== null) marks.push(mark);
      from = end + (end === bel ? BEL.length : ST.length);
    }
    return marks;
  };
}

/** How the rc file writes a command line into its mark (the inverse of the reader's unescape), for tests and the rc file's own shape. */
export function escapeForMark(command: string): string {
  let out = '';
  for (const c of command) {
    const code = c.charCodeAt(0);
    if (c === '\\') out += '\\\\';
    else if (c === ';' || code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += c;
  }
  return out;
}
