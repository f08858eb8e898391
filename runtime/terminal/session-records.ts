// What every terminal session leaves on record, the sidecar's shells and pod shells alike
// (docs/terminal.md "The command record"): the session in the terminal session audit and
// `terminal_session_start` in the general log when it starts, each command as it is run, and
// how it ended. Each start also prunes what is past the 180-day retention (spec §6), so the
// retention holds whichever kind of session an install uses.
import type { Kysely } from 'kysely';
import type { Clock } from '../../domain/clock.ts';
import type { AuditService } from '../../handlers/audit/service.ts';
import type { StoredTerminalSession } from '../../handlers/terminal/service.ts';
import type { Logger } from '../log.ts';
import type { Database } from '../store/tables.ts';

/** Spec §6: the terminal session audit and the command record are kept 180 days. */
export const TERMINAL_RETENTION_MS = 180 * 24 * 60 * 60 * 1000;

export interface RecordedSession {
  id: string;
  user: { id: number; username: string; role: string };
  namespace: string;
  clientIp: string;
  /** A pod shell's container (`namespace/pod/container`); null for the sidecar's shell. */
  target: string | null;
  /**
   * Whose credential the shell runs with (the terminal account the token was minted for, or
   * the agent's own for a pod shell), for the general log's row as `identity`: a detail named
   * `credential` is hidden by the audit log's redaction, as a secret would be.
   */
  credential: string;
}

export interface SessionRecords {
  /** Recorded before any of the session's events is handled. */
  started(session: RecordedSession): Promise<void>;
  command(session: RecordedSession, command: string): void;
  ended(id: string, reason: string): void;
  /** The newest sessions with their commands (the terminal session audit). */
  recent(limit: number): Promise<StoredTerminalSession[]>;
  /** Sessions of this kind an earlier run of the agent left open ended with it. */
  closeLeftOpen(kind: 'sidecar' | 'pod'): void;
}

export function sessionRecords(db: Kysely<Database>, audit: AuditService, clock: Clock, log: Logger): SessionRecords {
  const prune = async (): Promise<void> => {
    const before = clock.now().getTime() - TERMINAL_RETENTION_MS;
    await db.deleteFrom('terminal_commands').where('at', '<', before).execute();
    await db.deleteFrom('terminal_sessions').where('started_at', '<', before).execute();
  };
  return {
    async started(s) {
      await db
        .insertInto('terminal_sessions')
        .values({ id: s.id, user_id: s.user.id, username: s.user.username, role: s.user.role, namespace: s.namespace, client_ip: s.clientIp, started_at: clock.now().getTime(), ended_at: null, end_reason: null, target: s.target })
        .execute();
      await audit.record({
        actor: s.user.username,
        category: 'terminal',
        action: 'terminal_session_start',
        outcome: 'success',
        severity: 'info',
        detail: { terminal: s.id, ...(s.target === null ? {} : { target: s.target }), namespace: s.namespace, role: s.user.role, identity: s.credential },
      });
      void prune().catch((err: unknown) => log.warn('terminal audit prune failed', { error: String(err) }));
    },
    command(s, command) {
      void db
        .insertInto('terminal_commands')
        .values({ session_id: s.id, user_id: s.user.id, username: s.user.username, namespace: s.namespace, at: clock.now().getTime(), command })
        .execute()
        .catch((err: unknown) => log.error('could not record a terminal command', { session: s.id, error: String(err) }));
    },
    ended(id, reason) {
      void db
        .updateTable('terminal_sessions')
        .set({ ended_at: clock.now().getTime(), end_reason: reason })
        .where('id', '=', id)
        .execute()
        .catch((err: unknown) => log.error('could not record the end of a terminal session', { session: id, error: String(err) }));
    },
    async recent(limit) {
      const sessions = await db.selectFrom('terminal_sessions').selectAll().orderBy('started_at', 'desc').limit(limit).execute();
      const ids = sessions.map((s) => s.id);
      const commands = ids.length === 0 ? [] : await db.selectFrom('terminal_commands').select(['session_id', 'at', 'command']).where('session_id', 'in', ids).orderBy('id').execute();
      return sessions.map(
        (s): StoredTerminalSession => ({
          id: s.id,
          target: s.target,
          username: s.username,
          role: s.role,
          namespace: s.namespace,
          clientIp: s.client_ip,
          startedAt: new Date(s.started_at),
          endedAt: s.ended_at === null ? null : new Date(s.ended_at),
          endReason: s.end_reason,
          commands: commands.filter((c) => c.session_id === s.id).map((c) => ({ at: new Date(c.at), command: c.command })),
        }),
      );
    },
    closeLeftOpen(kind) {
      void db
        .updateTable('terminal_sessions')
        .set({ ended_at: clock.now().getTime(), end_reason: 'agent_restarted' })
        .where('ended_at', 'is', null)
        .where('target', kind === 'sidecar' ? 'is' : 'is not', null)
        .execute()
        .catch((err: unknown) => log.error('could not close the sessions of an earlier run', { kind, error: String(err) }));
    },
  };
}
