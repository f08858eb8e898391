// The browser terminal's bounds (issue 29, spec §1 `terminal.*`): shared by the agent, which
// counts a person's sessions, and the sidecar, which counts the pod's.

/** Sessions one person may have open at once, detached ones included until their grace ends. */
export const TERMINAL_MAX_PER_USER = 5;
/** Sessions one pod runs at once. */
export const TERMINAL_MAX_TOTAL = 20;
/** Default seconds a session whose browser went away waits to be re-attached. */
export const DEFAULT_REATTACH_GRACE_SECS = 60;
/** The sidecar's default address: loopback in the pod, never a Service. */
export const DEFAULT_SIDECAR_LISTEN = '127.0.0.1:7682';
