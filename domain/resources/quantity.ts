// Kubernetes resource quantities (`250m`, `1.5`, `512Mi`, `1G`, `1e3`) as numbers, by the
// grammar of k8s.io/apimachinery's resource.Quantity: a signed decimal number and at most one
// suffix, binary SI (Ki..Ei), decimal SI (n u m k M G T P E; kilo is lower-case k) or a
// decimal exponent (e/E and a signed integer).

const SUFFIX: Readonly<Record<string, number>> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};

const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]?))$/;

/** The quantity in base units (cores, bytes), or null when it does not parse or is too large for a number. */
export function parseQuantity(text: string | undefined): number | null {
  if (text === undefined) return null;
  const match = QUANTITY.exec(text.trim());
  if (!match) return null;
  const [, number = '', exponent, suffix = ''] = match;
  const factor = SUFFIX[suffix];
  if (factor === undefined) return null;
  const value = exponent === undefined ? Number(number) * factor : Number(number + exponent);
  return Number.isFinite(value) ? value : null;
}

export function millicores(text: string | undefined): number | null {
  const cores = parseQuantity(text);
  return cores === null ? null : Math.round(cores * 1000);
}

export function bytes(text: string | undefined): number | null {
  const value = parseQuantity(text);
  return value === null ? null : Math.round(value);
}
