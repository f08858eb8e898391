// Kubernetes resource quantities (`250m`, `1.5`, `512Mi`, `1G`, `1e3`) as numbers.

const BINARY: Readonly<Record<string, number>> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Readonly<Record<string, number>> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, K: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

/** The quantity in base units (cores, bytes), or null when it does not parse. */
export function parseQuantity(text: string | undefined): number | null {
  if (text === undefined) return null;
  const match = /^([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(Ki|Mi|Gi|Ti|Pi|Ei|[numkKMGTPE]?)$/.exec(text.trim());
  if (!match) return null;
  const [, number = '', suffix = ''] = match;
  const factor = BINARY[suffix] ?? DECIMAL[suffix];
  return factor === undefined ? null : Number(number) * factor;
}

export function millicores(text: string | undefined): number | null {
  const cores = parseQuantity(text);
  return cores === null ? null : Math.round(cores * 1000);
}

export function bytes(text: string | undefined): number | null {
  const value = parseQuantity(text);
  return value === null ? null : Math.round(value);
}
