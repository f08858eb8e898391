// What the chat dock asks about: the object of the view the person is on, read from the URL
// (every view has a stable one, docs/dashboard.md), as a cluster-model node id.

export function focusOf(path: string): string | null {
  const parts = path.split('/').filter(Boolean).map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
  const [first, ns, third, pod] = parts;
  if (first === 'graph' && ns !== undefined && parts.length === 2) return ns;
  if (first === 'incidents' && ns !== undefined && third !== undefined && parts.length === 3) return `pod:${ns}/${third}`;
  if (first === 'namespaces' && ns !== undefined) {
    if (parts.length === 2) return `namespace:${ns}`;
    if (third === 'pods' && pod !== undefined && parts.length === 4) return `pod:${ns}/${pod}`;
  }
  return null;
}
