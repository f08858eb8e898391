import * as v from 'valibot';

export const Liveness = v.object({ status: v.literal('ok') });
export const Readiness = v.object({ status: v.literal('ready'), synced: v.array(v.string()) });
