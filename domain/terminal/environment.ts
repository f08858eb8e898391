// The environment a terminal's shell starts with: built from an allowlist, never by removing
// known secrets from the sidecar's own environment (a new secret-bearing variable added to the
// pod one day must not reach the shell because nobody listed it). A name that looks like a
// secret is refused even when allowlisted.

/** Variables copied from the sidecar's environment when present: locale, time zone, search path. */
export const INHERITED = ['PATH', 'LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'LC_MESSAGES', 'TZ'] as const;

const SECRET_LOOKING = /(pass(word|wd|phrase)?|secret|token|api_?key|access_?key|private|credential|auth|cookie|session)/i;

export interface SessionEnvironment {
  home: string;
  user: string;
  /** The per-session kubeconfig the shell's kubectl uses. */
  kubeconfig: string;
  /** The namespace the session opened in (the kubeconfig's context namespace too). */
  namespace: string;
}

/** The shell's whole environment: the inherited allowlist plus what the session sets. */
export function terminalEnvironment(parent: Readonly<Record<string, string | undefined>>, session: SessionEnvironment): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED) {
    const value = parent[name];
    if (value !== undefined && !SECRET_LOOKING.test(name)) env[name] = value;
  }
  return {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    ...env,
    HOME: session.home,
    USER: session.user,
    LOGNAME: session.user,
    SHELL: '/bin/bash',
    TERM: 'xterm-256color',
    COLORTERM: 'truecolor',
    KUBECONFIG: session.kubeconfig,
    CAPSTAN_NAMESPACE: session.namespace,
    // kubectl and helm must not reach for a cache or config outside the session's home.
    XDG_CACHE_HOME: `${session.home}/.cache`,
    XDG_CONFIG_HOME: `${session.home}/.config`,
  };
}
