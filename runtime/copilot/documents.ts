// AI Context documents in the database: user-authored content, never pruned (spec §6). A title
// is unique regardless of case (the table's index), so a second "Runbook" is refused, not added:
// the store answers that refusal, and a missing document, as the AppError the handler passes on.
import type { Clock } from '../../domain/clock.ts';
import type { SearchableDocument } from '../../domain/copilot/search.ts';
import type { AiContextStore } from '../../handlers/copilot/service.ts';
import { fail, ok, taken, type Result } from '../../handlers/result.ts';
import type { AiContextDoc, AiContextDocInput, AiContextDocSummary } from '../../schema/copilot.ts';
import type { Db } from '../store/database.ts';
import type { AiContextDocsTable } from '../store/tables.ts';

type Row = Omit<AiContextDocsTable, 'id'> & { id: number };

const iso = (ms: number) => new Date(ms).toISOString();
const summary = (r: Omit<Row, 'body'> & { chars: number }): AiContextDocSummary => ({ id: r.id, title: r.title, include_in_ai: r.include_in_ai === 1, created_at: iso(r.created_at), updated_at: iso(r.updated_at), updated_by: r.updated_by, chars: r.chars });
const whole = (r: Row): AiContextDoc => ({ id: r.id, title: r.title, body: r.body, include_in_ai: r.include_in_ai === 1, created_at: iso(r.created_at), updated_at: iso(r.updated_at), updated_by: r.updated_by });

/** SQLite's answer to a second row under a unique index. */
const isUniqueViolation = (err: unknown) => err instanceof Error && /UNIQUE constraint failed/i.test(err.message);
const titleTaken = (title: string): Result<never> => fail(taken('title', `an AI Context document is already titled ${title}`));
const notFound = (id: number): Result<never> => fail({ code: 'not_found', message: `no AI Context document ${id}` });

export function createAiContextStore(db: Db, clock: Clock): AiContextStore {
  const get = async (id: number): Promise<AiContextDoc | null> => {
    const row = await db.selectFrom('ai_context_docs').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? whole(row) : null;
  };
  return {
    async list() {
      const rows = await db
        .selectFrom('ai_context_docs')
        .select((eb) => ['id', 'title', 'include_in_ai', 'created_at', 'updated_at', 'updated_by', eb.fn<number>('length', ['body']).as('chars')])
        .orderBy('title')
        .execute();
      return rows.map(summary);
    },
    get,
    async all(): Promise<SearchableDocument[]> {
      return db.selectFrom('ai_context_docs').select(['id', 'title', 'body']).orderBy('id').execute();
    },
    async count() {
      const row = await db.selectFrom('ai_context_docs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return row.n;
    },
    async create(doc: AiContextDocInput, by: string): Promise<Result<AiContextDoc>> {
      const now = clock.now().getTime();
      try {
        const row = await db
          .insertInto('ai_context_docs')
          .values({ title: doc.title, body: doc.body, include_in_ai: doc.include_in_ai ? 1 : 0, created_at: now, updated_at: now, updated_by: by })
          .returningAll()
          .executeTakeFirstOrThrow();
        return ok(whole(row));
      } catch (err) {
        if (isUniqueViolation(err)) return titleTaken(doc.title);
        throw err;
      }
    },
    async update(id: number, doc: AiContextDocInput, by: string): Promise<Result<AiContextDoc>> {
      try {
        const row = await db
          .updateTable('ai_context_docs')
          .set({ title: doc.title, body: doc.body, include_in_ai: doc.include_in_ai ? 1 : 0, updated_at: clock.now().getTime(), updated_by: by })
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirst();
        return row ? ok(whole(row)) : notFound(id);
      } catch (err) {
        if (isUniqueViolation(err)) return titleTaken(doc.title);
        throw err;
      }
    },
    async remove(id: number) {
      const result = await db.deleteFrom('ai_context_docs').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
