/**
 * The nodes of a box of M masters and N workers: `master-0…`, then `worker-0…`, spread over three
 * zones in turn. A cluster that grows keeps its first nodes' names and zones.
 */
export interface NodeSpec {
  readonly name: string;
  readonly pool: 'master' | 'worker';
  readonly zone: string;
}

/** The box's nodes, masters first. */
export function nodeSpecs(masters: number, workers: number): NodeSpec[] {
  const zones = ['zone-a', 'zone-b', 'zone-c'];
  const make = (pool: 'master' | 'worker', n: number): NodeSpec[] =>
    Array.from({ length: n }, (_, i) => ({
      name: `${pool}-${i}`,
      pool,
      zone: zones[i % zones.length] ?? 'zone-a',
    }));
  return [...make('master', masters), ...make('worker', workers)];
}
