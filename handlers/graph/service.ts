import type { Result } from '../result.ts';

export type Positions = Readonly<Record<string, { x: number; y: number }>>;

/** Each user's own topology layouts, one per focus. */
export interface LayoutStore {
  get(userId: number, focus: string): Promise<{ positions: Positions; updatedAt: Date } | null>;
  /** Replaces the layout of `focus`; a new one past MAX_LAYOUTS_PER_USER is 409 `conflict`. */
  put(userId: number, focus: string, positions: Positions): Promise<Result<{ updatedAt: Date }>>;
  remove(userId: number, focus: string): Promise<boolean>;
}
