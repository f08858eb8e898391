// A person's session against a running agent, as the integration tests drive it: sign in, call
// a route with the session (or an API key), keep every answer's text (for a test that proves a
// secret never comes back), and wait for a Task to end.
import assert from 'node:assert/strict';
import { waitFor } from './cluster.ts';

export interface TaskRow {
  id: string;
  kind: string;
  actor: string;
  state: string;
  reason: string | null;
  detail: string;
}

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** The session cookie of `username`, signed in with a password. */
export async function signInAs(agentUrl: string, username: string, password: string): Promise<string> {
  const res = await fetch(`${agentUrl}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
  return (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}

/** `target()` is read per call: a test that restarts its agent keeps the same session object. */
export function agentSession(target: () => { url: string; cookie: string }) {
  const answers: string[] = [];
  const call = async (method: string, path: string, body?: unknown, auth: { key?: string } = {}): Promise<Answer> => {
    const { url, cookie } = target();
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(auth.key ? { 'x-api-key': auth.key } : { cookie, origin: url }) };
    const res = await fetch(`${url}/api/agent${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    answers.push(text);
    return { status: res.status, body: JSON.parse(text) as Record<string, unknown> };
  };
  const task = async (id: string): Promise<TaskRow | undefined> => ((await call('GET', '/tasks')).body.tasks as TaskRow[]).find((t) => t.id === id);
  /** Waits for the task to leave `running`, and answers it. */
  const taskEnded = async (id: string, timeoutMs = 90_000): Promise<TaskRow> => {
    let last: TaskRow | undefined;
    await waitFor(
      `task ${id} to end`,
      async () => {
        last = await task(id);
        return last !== undefined && last.state !== 'running';
      },
      timeoutMs,
      500,
    );
    assert.ok(last);
    return last;
  };
  return { answers, call, task, taskEnded };
}
