import type { Out } from '../../schema/common.ts';
import type { TerminalSessionList } from '../../schema/terminal.ts';
import type { SessionContext } from '../context.ts';
import { ok, type Result } from '../result.ts';

/** How many sessions the terminal session audit answers (newest first). */
export const RECENT_SESSIONS = 100;

export async function listTerminalSessions(_input: unknown, ctx: SessionContext): Promise<Result<Out<typeof TerminalSessionList>>> {
  const sessions = await ctx.terminal.recent(RECENT_SESSIONS);
  return ok({
    sessions: sessions.map((s) => ({
      id: s.id,
      target: s.target,
      username: s.username,
      role: s.role,
      namespace: s.namespace,
      client_ip: s.clientIp,
      started_at: s.startedAt.toISOString(),
      ended_at: s.endedAt?.toISOString() ?? null,
      end_reason: s.endReason,
      commands: s.commands.map((c) => ({ at: c.at.toISOString(), command: c.command })),
    })),
  });
}
