import * as v from 'valibot';

export const ChainReport = v.variant('intact', [
  v.object({ intact: v.literal(true), rows_checked: v.number() }),
  v.object({
    intact: v.literal(false),
    rows_checked: v.number(),
    first_bad_row: v.number(),
    /** content_edit: the row's own content changed; linkage_break: its predecessor was deleted. */
    problem: v.picklist(['content_edit', 'linkage_break']),
  }),
]);
export type ChainReport = v.InferOutput<typeof ChainReport>;
