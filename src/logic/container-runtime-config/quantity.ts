/**
 * Kubernetes resource quantities (`10G`, `8Ki`, `512M`, `1e3`) as integers, for the
 * ContainerRuntimeConfig size fields: decimal SI and binary suffixes, rounded up like
 * resource.Quantity.Value(). Undefined for text that is not a quantity.
 */

const Binary: Readonly<Record<string, number>> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};
const Decimal: Readonly<Record<string, number>> = {
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

const QuantityRe =
  /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])|[eE]([+-]?\d+))?$/;

export function quantityValue(q: string | number): number | undefined {
  if (typeof q === 'number') return Number.isFinite(q) ? Math.ceil(q) : undefined;
  const m = QuantityRe.exec(q.trim());
  if (m === null) return undefined;
  const base = Number(m[1]);
  const suffix = m[2] ?? '';
  const factor = m[3] !== undefined ? 10 ** Number(m[3]) : (Binary[suffix] ?? Decimal[suffix] ?? 1);
  return Math.ceil(base * factor);
}
