// Placeholder until this analyzer lands (issue 12): it finds nothing yet.
import type { CodeSpec } from '../codes.ts';
import type { Analyzer } from '../input.ts';

export const STORAGE_CODES: readonly CodeSpec[] = [];

export const analyzeStorage: Analyzer = () => [];
