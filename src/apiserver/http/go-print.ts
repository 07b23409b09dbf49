/**
 * How Go's client-go jsonpath prints one value into a `string` printer column: strings as they are,
 * numbers as Go's `%v` (integers plainly, other floats in `%g` form such as `1.5e+06`), booleans as
 * `true`/`false`, maps and lists as compact JSON with sorted keys, and JSON null as `<no value>`.
 */
import { goJson } from '../../lib/go/json-string.js';

export function goPrint(value: unknown): string {
  if (value === null || value === undefined) return '<no value>';
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return goFormatNumber(value);
  return goJson(value);
}

/**
 * Unstructured JSON decodes integral numbers as int64 (printed in full) and the rest as float64,
 * which `%v` prints with the shortest digits and an exponent outside 1e-4 ≤ |x| < 1e6.
 */
function goFormatNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 63) return BigInt(n).toString();
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? '+Inf' : '-Inf';
  const [mantissa = '', exponentText = '0'] = n.toExponential().split('e');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6) {
    const sign = exponent < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return String(n);
}
