// Saved Helm configs (docs/helm.md "Saved configs"): a repository or registry URL with its
// credentials. The password is sealed with the at-rest key (AES-256-GCM) and opened only here,
// for the one fetch that authenticates with it (`credentialsOf`); what handlers get never holds
// it. Names are unique ignoring case.
import type { Clock } from '../../domain/clock.ts';
import type { HelmConfig, HelmConfigStore } from '../../handlers/helm/service.ts';
import { fail, ok, taken } from '../../handlers/result.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Db } from '../store/database.ts';
import type { HelmConfigsTable } from '../store/tables.ts';
import type { Selectable } from 'kysely';

/** What a saved config lends one fetch: where, and with what credentials (the password opened). */
export interface ConfigCredentials {
  url: string;
  username: string | null;
  password: string | null;
  plainHttp: boolean;
}

export interface RuntimeHelmConfigs extends HelmConfigStore {
  /** The config's URL and opened credentials, or null when there is no such config. */
  credentialsOf(id: number): Promise<ConfigCredentials | null>;
}

/** At most this many saved configs: a bounded table, like every other admin list. */
export const MAX_HELM_CONFIGS = 100;

const toConfig = (r: Selectable<HelmConfigsTable>): HelmConfig => ({
  id: r.id,
  name: r.name,
  kind: r.url.startsWith('oci://') ? 'oci' : 'repository',
  url: r.url,
  username: r.username,
  plainHttp: r.plain_http === 1,
  hasPassword: r.password_sealed !== null,
  createdBy: r.created_by,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
});

export function createHelmConfigStore(db: Db, clock: Clock, secrets: SecretBox): RuntimeHelmConfigs {
  const nameTaken = async (name: string, except: number | null): Promise<boolean> => {
    const row = await db.selectFrom('helm_configs').select('id').where('name_key', '=', name.toLowerCase()).executeTakeFirst();
    return row !== undefined && row.id !== except;
  };
  const byId = (id: number) => db.selectFrom('helm_configs').selectAll().where('id', '=', id).executeTakeFirst();
  const sealed = (password: string | undefined): string | null => (password === undefined || password === '' ? null : secrets.seal(password));

  return {
    async list() {
      return (await db.selectFrom('helm_configs').selectAll().orderBy('name_key').execute()).map(toConfig);
    },
    async create(input, actor) {
      if (await nameTaken(input.name, null)) return fail(taken('name', `a Helm config named "${input.name}" exists`));
      const count = await db.selectFrom('helm_configs').select((eb) => eb.fn.countAll<number | bigint>().as('n')).executeTakeFirst();
      if (Number(count?.n ?? 0) >= MAX_HELM_CONFIGS) return fail({ code: 'conflict', field: 'name', message: `at most ${String(MAX_HELM_CONFIGS)} Helm configs are kept; delete one first` });
      const at = clock.now().getTime();
      const row = await db
        .insertInto('helm_configs')
        .values({ name: input.name, name_key: input.name.toLowerCase(), url: input.url, username: input.username ?? null, password_sealed: sealed(input.password), plain_http: input.plain_http ? 1 : 0, created_by: actor, created_at: at, updated_at: at })
        .returningAll()
        .executeTakeFirstOrThrow();
      return ok(toConfig(row));
    },
    async update(id, input) {
      const held = await byId(id);
      if (!held) return fail({ code: 'not_found', message: `no Helm config ${String(id)}` });
      if (await nameTaken(input.name, id)) return fail(taken('name', `a Helm config named "${input.name}" exists`));
      const password = input.password === undefined ? held.password_sealed : sealed(input.password);
      const row = await db
        .updateTable('helm_configs')
        .set({ name: input.name, name_key: input.name.toLowerCase(), url: input.url, username: input.username ?? null, password_sealed: password, plain_http: input.plain_http ? 1 : 0, updated_at: clock.now().getTime() })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return ok(toConfig(row));
    },
    async remove(id) {
      const result = await db.deleteFrom('helm_configs').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) === 0 ? fail({ code: 'not_found', message: `no Helm config ${String(id)}` }) : ok({ id });
    },
    async credentialsOf(id) {
      const row = await byId(id);
      if (!row) return null;
      return { url: row.url, username: row.username, password: row.password_sealed === null ? null : secrets.open(row.password_sealed), plainHttp: row.plain_http === 1 };
    },
  };
}
