import type { App, AppDefinition } from '../../schema/apps.ts';

/** Saved applications. Names are unique ignoring case. */
export interface ApplicationStore {
  list(): Promise<App[]>;
  get(id: string): Promise<App | null>;
  create(definition: AppDefinition, createdBy: string): Promise<App | 'name_taken'>;
  update(id: string, definition: AppDefinition): Promise<App | 'not_found' | 'name_taken'>;
  remove(id: string): Promise<boolean>;
}
