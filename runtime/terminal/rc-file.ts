// The bash rc file of one terminal session. It sets the prompt, loads the user's redacted
// history without ever letting bash write its own (raw) history file, and prints the
// shell-integration marks the command record is read from (domain/terminal/shell-marks.ts):
// before a command runs, `633;E` with the line and the session's nonce; after, `133;D` with
// its exit status. The nonce is an unexported variable: a program the shell runs cannot
// read it from its environment, so output it prints cannot forge a mark.
//
// A mark is printed once per new history entry (the history number moves), so an empty
// Enter, and the prompt's own commands, print none. HISTCONTROL and HISTIGNORE are cleared
// so a repeated command, or one typed after a space, is still recorded.

/** `value` as one single-quoted bash word. */
const quoted = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`;

export function sessionRcFile(options: { nonce: string; historyFile: string; userRc: string | null; prompt?: string }): string {
  return [
    '# Written by capstan terminal for this session; removed when it ends.',
    options.userRc === null ? '' : `[ -r ${quoted(options.userRc)} ] && . ${quoted(options.userRc)}`,
    `__capstan_nonce=${quoted(options.nonce)}`,
    'export -n __capstan_nonce',
    'HISTCONTROL=',
    'HISTIGNORE=',
    'HISTSIZE=5000',
    `HISTFILE=${quoted(options.historyFile)}`,
    'history -r',
    // Bash writes its history file at exit and on `history -w` only through HISTFILE: with it
    // unset the raw lines never reach the disk; the sidecar appends the redacted ones.
    'unset HISTFILE',
    // `$` whatever the Unix user (bash's \\$ says # for root, and the Capstan user is not the Unix one).
    options.prompt === undefined ? 'PS1=\'${USER}@capstan:\\w$ \'' : `PS1=${quoted(options.prompt)}`,
    '__capstan_escape() {',
    '  local s=${1//\\\\/\\\\\\\\}',
    "  s=${s//;/\\\\x3b}",
    "  s=${s//$'\\n'/\\\\x0a}",
    "  s=${s//$'\\r'/\\\\x0d}",
    "  s=${s//$'\\a'/\\\\x07}",
    "  s=${s//$'\\e'/\\\\x1b}",
    "  printf '%s' \"$s\"",
    '}',
    '__capstan_last=',
    '__capstan_at_prompt=',
    '__capstan_preexec() {',
    '  [ -n "$__capstan_at_prompt" ] || return 0',
    '  __capstan_at_prompt=',
    '  local entry number line',
    '  entry=$(HISTTIMEFORMAT= builtin history 1)',
    '  number=${entry%%[!0-9 ]*}',
    '  number=${number// /}',
    '  [ -n "$number" ] && [ "$number" != "$__capstan_last" ] || return 0',
    '  __capstan_last=$number',
    '  line=${entry#*[0-9]  }',
    "  builtin printf '\\e]633;E;%s;%s\\a' \"$(__capstan_escape \"$line\")\" \"$__capstan_nonce\"",
    '}',
    'trap \'__capstan_preexec\' DEBUG',
    "PROMPT_COMMAND='__capstan_status=$?; builtin printf \"\\e]133;D;%s\\a\" \"$__capstan_status\"; __capstan_at_prompt=1'",
    '',
  ].join('\n');
}
