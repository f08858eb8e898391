// The browser terminal (spec §4 `/terminal/ws`): a person's session only (no API key or OAuth
// token reaches it, spec §5), authenticated and IP-checked before the upgrade is accepted;
// the terminal session audit for admins. docs/terminal.md.
import { NoInput } from '../../schema/common.ts';
import { PodExecSocketInput, TerminalServerMessage, TerminalSessionList, TerminalSocketInput } from '../../schema/terminal.ts';
import { defineRoute, noApiKeys, type Route } from '../route.ts';
import { listTerminalSessions } from './sessions.ts';
import { openPodExec, openTerminal } from './socket.ts';

export const terminalRoutes: readonly Route[] = [
  defineRoute({
    method: 'GET',
    path: '/terminal/ws',
    websocket: true,
    summary: 'A shell in the terminal sidecar over a WebSocket (JSON frames: input and resize in; session, output and exit out); query namespace (kubectl\'s default), cols, rows, session (re-attach yours within the grace period); at most 5 sessions per user and 20 in all',
    ...noApiKeys('viewer'),
    audit: 'http',
    rateLimit: 'write',
    namespaceParam: 'namespace',
    input: TerminalSocketInput,
    output: TerminalServerMessage,
    handler: openTerminal,
  }),
  defineRoute({
    method: 'GET',
    path: '/terminal/ws/pods/:namespace/:pod',
    websocket: true,
    summary: "A shell in a pod's container over the API server's exec, as a WebSocket with the terminal's frames (query container, cols, rows): admins' sessions only, when the agent's RBAC grants pods/exec (rbac.allowWrites); recorded as a terminal session with its commands",
    ...noApiKeys('admin'),
    audit: 'http',
    rateLimit: 'write',
    namespaceParam: 'namespace',
    input: PodExecSocketInput,
    output: TerminalServerMessage,
    handler: openPodExec,
  }),
  defineRoute({
    method: 'GET',
    path: '/admin/terminal/sessions',
    summary: 'The terminal session audit: the newest 100 sessions (who, role, namespace, address, start, end and why) with their commands, redacted (output is never stored)',
    ...noApiKeys('admin'),
    audit: 'http',
    rateLimit: 'read',
    input: NoInput,
    output: TerminalSessionList,
    handler: listTerminalSessions,
  }),
];
