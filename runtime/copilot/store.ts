// The copilot's tables (migration 10): daily usage per actor, conversation transcripts (kept
// 180 days from their last turn), and the AI Context documents a run attaches.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import * as v from 'valibot';
import { WITHOUT_MODEL_LABEL } from '../../domain/copilot/explain.ts';
import type { Clock } from '../../domain/clock.ts';
import type { StandingDocument } from '../../domain/copilot/context.ts';
import type { RunKind, RunLimits, UsageToday } from '../../handlers/copilot/admission.ts';
import type { CopilotStore, Turn } from '../../handlers/copilot/service.ts';
import { Conversation, StoredAnswer, type Citation, type ConversationSummary, type PromptLogEntry, type StoredAnswerSummary } from '../../schema/copilot.ts';
import type { Db } from '../store/database.ts';

/** Agent session transcripts: spec §6, 180 days. */
export const TRANSCRIPT_RETENTION_MS = 180 * 24 * 3600 * 1000;
const PRUNE_INTERVAL_MS = 3600 * 1000;
/** A conversation's title: its first question, cut. */
const TITLE_CHARS = 120;

const utcDay = (d: Date) => d.toISOString().slice(0, 10);

export function createCopilotStore(db: Db, clock: Clock): CopilotStore {
  let prunedAt = 0;
  const prune = async (now: number) => {
    if (now - prunedAt < PRUNE_INTERVAL_MS) return;
    prunedAt = now;
    // On the insert path, as every append-only table here prunes (spec §6).
    await db.deleteFrom('ai_conversations').where('updated_at', '<', now - TRANSCRIPT_RETENTION_MS).execute();
    await db.deleteFrom('ai_answers').where('created_at', '<', now - TRANSCRIPT_RETENTION_MS).execute();
    await db.deleteFrom('ai_usage').where('day', '<', utcDay(new Date(now - 35 * 24 * 3600 * 1000))).execute();
  };
  const bump = async (actor: string, fields: { runs?: number; chat_prompts?: number; input_tokens?: number; output_tokens?: number }) => {
    const row = { actor, day: utcDay(clock.now()), runs: fields.runs ?? 0, chat_prompts: fields.chat_prompts ?? 0, input_tokens: fields.input_tokens ?? 0, output_tokens: fields.output_tokens ?? 0 };
    await db
      .insertInto('ai_usage')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['actor', 'day']).doUpdateSet({
          runs: sql`runs + ${row.runs}`,
          chat_prompts: sql`chat_prompts + ${row.chat_prompts}`,
          input_tokens: sql`input_tokens + ${row.input_tokens}`,
          output_tokens: sql`output_tokens + ${row.output_tokens}`,
        }),
      )
      .execute();
  };
  return {
    async usageToday(actor: string): Promise<UsageToday> {
      const day = utcDay(clock.now());
      const rows = await db.selectFrom('ai_usage').selectAll().where('day', '=', day).execute();
      const mine = rows.find((r) => r.actor === actor);
      return {
        chat_prompts: mine?.chat_prompts ?? 0,
        runs: mine?.runs ?? 0,
        tokens: (mine?.input_tokens ?? 0) + (mine?.output_tokens ?? 0),
        install_tokens: rows.reduce((n, r) => n + r.input_tokens + r.output_tokens, 0),
      };
    },
    async reserveRun(actor: string, kind: RunKind, limits: RunLimits) {
      const day = utcDay(clock.now());
      const chat = kind === 'chat' ? 1 : 0;
      // One statement checks today's counts and takes one unit, as the sign-in lockout counts an
      // attempt, so no other run (in this process or another on the same database) is judged
      // between the two; a count at its limit matches the WHERE of no update and returns no row.
      // A first run of the day inserts its row: every limit here is at least 1.
      const underRuns = limits.runs === null ? sql<boolean>`1` : sql<boolean>`ai_usage.runs < ${limits.runs}`;
      const underChat = limits.chat_prompts === null || chat === 0 ? sql<boolean>`1` : sql<boolean>`ai_usage.chat_prompts < ${limits.chat_prompts}`;
      const row = await db
        .insertInto('ai_usage')
        .values({ actor, day, runs: 1, chat_prompts: chat, input_tokens: 0, output_tokens: 0 })
        .onConflict((oc) =>
          oc
            .columns(['actor', 'day'])
            .doUpdateSet({ runs: sql<number>`ai_usage.runs + 1`, chat_prompts: sql<number>`ai_usage.chat_prompts + ${chat}` })
            .where(sql<boolean>`(${underRuns}) AND (${underChat})`),
        )
        .returning('runs')
        .executeTakeFirst();
      if (row) return { reserved: true as const };
      const used = await db.selectFrom('ai_usage').select(['runs', 'chat_prompts']).where('actor', '=', actor).where('day', '=', day).executeTakeFirst();
      return { reserved: false as const, usage: { runs: used?.runs ?? 0, chat_prompts: used?.chat_prompts ?? 0 } };
    },
    addTokens: (actor, usage) => bump(actor, usage),
    async standingDocuments(): Promise<StandingDocument[]> {
      return db.selectFrom('ai_context_docs').select(['title', 'body']).where('include_in_ai', '=', 1).orderBy('id').execute();
    },
    async conversation(id: string, userId: number): Promise<Turn[] | null> {
      const owned = await db.selectFrom('ai_conversations').select('id').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
      if (!owned) return null;
      return db.selectFrom('ai_messages').select(['role', 'content']).where('conversation_id', '=', id).orderBy('id').execute();
    },
    async appendExchange(id: string | null, userId: number, question: string, answer: { text: string; citations: Citation[]; source: string }): Promise<string> {
      const now = clock.now().getTime();
      const conversationId = id ?? randomBytes(12).toString('base64url');
      await db.transaction().execute(async (tx) => {
        if (id === null) await tx.insertInto('ai_conversations').values({ id: conversationId, user_id: userId, title: question.slice(0, TITLE_CHARS), created_at: now, updated_at: now }).execute();
        else await tx.updateTable('ai_conversations').set({ updated_at: now }).where('id', '=', conversationId).execute();
        await tx
          .insertInto('ai_messages')
          .values([
            { conversation_id: conversationId, role: 'user', content: question, citations: '[]', source: 'user', created_at: now },
            { conversation_id: conversationId, role: 'assistant', content: answer.text, citations: JSON.stringify(answer.citations), source: answer.source, created_at: now },
          ])
          .execute();
      });
      await prune(now);
      return conversationId;
    },
    async saveAnswer(answer: Omit<StoredAnswer, 'id' | 'created_at'>): Promise<StoredAnswer> {
      const now = clock.now().getTime();
      const id = randomBytes(12).toString('base64url');
      const { kind, scope, actor, source, answer: text, citations, model, usage, steps, tool_calls, finish, error } = answer;
      const run = { model, usage, steps, tool_calls, finish, error };
      await db.insertInto('ai_answers').values({ id, kind, scope, actor, created_at: now, source, text, citations: JSON.stringify(citations), run: JSON.stringify(run) }).execute();
      await prune(now);
      return { id, kind, scope, actor, created_at: new Date(now).toISOString(), source, answer: text, citations, ...run };
    },
    async answers(q): Promise<StoredAnswerSummary[]> {
      const found: StoredAnswerSummary[] = [];
      // Newest first, a page at a time, until enough visible ones are found or ANSWER_SCAN_ROWS were read.
      for (let offset = 0; found.length < q.limit && offset < ANSWER_SCAN_ROWS; offset += ANSWER_PAGE) {
        // Only the start of each text: a list needs its headline, not whole reports.
        let query = db.selectFrom('ai_answers').select(['id', 'kind', 'scope', 'actor', 'created_at', 'source', sql<string>`substr(text, 1, ${HEADLINE_SOURCE_CHARS})`.as('text')]);
        if (q.kind !== undefined) query = query.where('kind', '=', q.kind);
        const rows = await query.orderBy('created_at', 'desc').orderBy('id').limit(ANSWER_PAGE).offset(offset).execute();
        for (const r of rows) {
          if (found.length < q.limit && q.scopes(r.scope)) found.push({ id: r.id, kind: r.kind, scope: r.scope, actor: r.actor, created_at: new Date(r.created_at).toISOString(), source: r.source === 'model' ? 'model' : 'diagnosis_without_model', headline: headlineOf(r.text) });
        }
        if (rows.length < ANSWER_PAGE) break;
      }
      return found;
    },
    async answer(id: string): Promise<StoredAnswer | null> {
      const r = await db.selectFrom('ai_answers').selectAll().where('id', '=', id).executeTakeFirst();
      if (!r) return null;
      return v.parse(StoredAnswer, { ...(JSON.parse(r.run) as object), id: r.id, kind: r.kind, scope: r.scope, actor: r.actor, created_at: new Date(r.created_at).toISOString(), source: r.source, answer: r.text, citations: JSON.parse(r.citations) as unknown });
    },
    async conversations(userId: number, limit: number): Promise<ConversationSummary[]> {
      const rows = await db
        .selectFrom('ai_conversations as c')
        .select((eb) => ['c.id', 'c.title', 'c.created_at', 'c.updated_at', eb.selectFrom('ai_messages as m').select((m) => m.fn.countAll<number>().as('n')).whereRef('m.conversation_id', '=', 'c.id').as('turns')])
        .where('c.user_id', '=', userId)
        .orderBy('c.updated_at', 'desc')
        .limit(limit)
        .execute();
      return rows.map((r) => ({ id: r.id, title: r.title, created_at: iso(r.created_at), updated_at: iso(r.updated_at), turns: r.turns ?? 0 }));
    },
    async transcript(id: string, userId: number): Promise<Conversation | null> {
      const c = await db.selectFrom('ai_conversations').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
      if (!c) return null;
      const messages = await db.selectFrom('ai_messages').selectAll().where('conversation_id', '=', id).orderBy('id').execute();
      return v.parse(Conversation, {
        id: c.id,
        title: c.title,
        created_at: iso(c.created_at),
        updated_at: iso(c.updated_at),
        turns: messages.length,
        messages: messages.map((m) => ({ role: m.role, content: m.content, citations: JSON.parse(m.citations) as unknown, source: m.source, created_at: iso(m.created_at) })),
      });
    },
    async promptLog(q: { limit: number; before?: number }): Promise<PromptLogEntry[]> {
      let query = db.selectFrom('ai_prompt_log').selectAll();
      if (q.before !== undefined) query = query.where('id', '<', q.before);
      const rows = await query.orderBy('id', 'desc').limit(q.limit).execute();
      return rows.map((r) => ({ ...r, ts: iso(r.ts) }));
    },
  };
}

const iso = (ms: number) => new Date(ms).toISOString();
const ANSWER_PAGE = 200;
const ANSWER_SCAN_ROWS = 5000;
/** Enough of a text to find its headline past the no-model label. */
const HEADLINE_SOURCE_CHARS = 1000;

/** A stored answer's first line of substance (the no-model label skipped), cut for a list. */
function headlineOf(text: string): string {
  const line = text.split('\n').map((l) => l.trim()).find((l) => l !== '' && l !== WITHOUT_MODEL_LABEL) ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
