// One copy of a string however many slimmed objects hold it. JSON.parse gives every object its
// own copy of each value: at scale-5000 the 5000 pods held 5000 copies of their 500 namespace
// names, of two image names, of `kube-root-ca.crt`, of 50 node names and of a few hundred
// timestamps. The informers pass the values that repeat across objects (names of namespaces,
// nodes, images, owners, kinds, reasons, timestamps) through here, never the ones unique to one
// object (its own name). The table is bounded: once full it starts afresh, so a cluster that
// churns through many distinct values costs at most this many entries.
const MAX_ENTRIES = 20_000;
const table = new Map<string, string>();

export function intern(value: string): string {
  const known = table.get(value);
  if (known !== undefined) return known;
  if (table.size >= MAX_ENTRIES) table.clear();
  table.set(value, value);
  return value;
}

export function internOrNull(value: string | null | undefined): string | null {
  return value === null || value === undefined ? null : intern(value);
}
