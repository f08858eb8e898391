import type { App, AppDefinition } from '../../schema/apps.ts';
import { taken, type AppError, type Result } from '../result.ts';

/** The store's refusals, shared with the handlers that refuse the same things (get, delete). */
export const appNotFound = (id: string): AppError => ({ code: 'not_found', message: `no application ${id}` });
export const appNameTaken = (name: string): AppError => taken('name', `an application named ${name} already exists`);

/** Saved applications. Names are unique ignoring case. Refusals are AppErrors (see Result). */
export interface ApplicationStore {
  list(): Promise<App[]>;
  get(id: string): Promise<App | null>;
  /** A taken name is 409 `conflict` on `name`. */
  create(definition: AppDefinition, createdBy: string): Promise<Result<App>>;
  /** An unknown id is 404; a taken name is 409 `conflict` on `name`. */
  update(id: string, definition: AppDefinition): Promise<Result<App>>;
  remove(id: string): Promise<boolean>;
}
