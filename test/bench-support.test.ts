// The benches' shared arithmetic and parsing: summaries, ratios per repeat, goals, the request
// counter read from /metrics, and targets read from kubeconfigs. The benches themselves are not
// tests (they run from dist/bench); these pieces decide what every bench prints.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { counterTotal, targetFromKubeconfig } from '../bench/support/api-target.js';
import { formatNumber, rowCells, summarise, type RowDef } from '../bench/support/bench-harness.js';

describe('summarise', () => {
  it('takes the middle value of an odd count and the mean of the middle two of an even one', () => {
    expect(summarise([3, 1, 2])).toEqual({ median: 2, min: 1, max: 3 });
    expect(summarise([4, 1, 3, 2])).toEqual({ median: 2.5, min: 1, max: 4 });
  });

  it('leaves out NaN and gives NaN for nothing', () => {
    expect(summarise([Number.NaN, 5])).toEqual({ median: 5, min: 5, max: 5 });
    expect(summarise([]).median).toBeNaN();
  });
});

describe('rowCells', () => {
  const row: RowDef = {
    id: 'P1',
    measure: 'render',
    unit: 'µs per MC',
    ours: 'render',
    baseline: { label: 'JSON', key: 'json' },
    goal: { on: 'ratio', op: '<=', value: 2 },
  };

  it('takes each ratio within its repeat, then the median and spread of the ratios', () => {
    // ratios 2, 3, 4: the median of the ratios is 3, not 60 / 15 = 4 from the medians
    const samples = [
      { render: 20, json: 10 },
      { render: 60, json: 20 },
      { render: 120, json: 30 },
    ];
    const c = rowCells(row, samples);
    expect(c.ours).toBe('60 [20–120]');
    expect(c.baseline).toBe('JSON 20 [10–30]');
    expect(c.ratio).toBe('3× [2–4]');
    expect(c.met).toBe('no');
  });

  it('inverts the ratio for rows that state speed from times, and checks ≥ goals', () => {
    const speed: RowDef = {
      ...row,
      ratio: 'baseline/ours',
      goal: { on: 'ratio', op: '>=', value: 1 },
    };
    const c = rowCells(speed, [{ render: 10, json: 20 }]);
    expect(c.ratio).toBe('2×');
    expect(c.met).toBe('yes');
  });

  it('prints why a baseline is missing and judges nothing on it', () => {
    const c = rowCells(row, [{ render: 10, json: 'skipped: MCO_BENCH_KUBE_APISERVER unset' }]);
    expect(c.baseline).toBe('JSON skipped: MCO_BENCH_KUBE_APISERVER unset');
    expect(c.ratio).toBe('—');
    expect(c.met).toBe('—');
  });

  it('judges a goal on our own figure', () => {
    const rss: RowDef = {
      id: 'P5',
      measure: 'RSS',
      unit: 'MiB',
      ours: 'rss',
      goal: { on: 'ours', op: '<=', value: 64 },
    };
    expect(rowCells(rss, [{ rss: 81 }]).met).toBe('no');
    expect(rowCells(rss, [{ rss: 60 }]).met).toBe('yes');
    expect(rowCells(rss, [{ rss: 'n/a: no counter' }]).ours).toBe('n/a: no counter');
  });
});

describe('formatNumber', () => {
  it('keeps a few significant digits', () => {
    expect(formatNumber(38_612.4)).toBe('38,612');
    expect(formatNumber(123.4)).toBe('123');
    expect(formatNumber(12.34)).toBe('12.3');
    expect(formatNumber(1.234)).toBe('1.23');
    expect(formatNumber(0.0654)).toBe('0.065');
    expect(formatNumber(7)).toBe('7');
    expect(formatNumber(Number.NaN)).toBe('n/a');
  });
});

describe('counterTotal', () => {
  const text = [
    '# HELP apiserver_request_total Counter of apiserver requests',
    '# TYPE apiserver_request_total counter',
    'apiserver_request_total{verb="GET",group="",version="v1",resource="nodes",subresource="",scope="resource",component="apiserver",code="200"} 12',
    'apiserver_request_total{verb="PATCH",group="",version="v1",resource="nodes",subresource="status",scope="resource",component="apiserver",code="200"} 30',
    'apiserver_request_total{code="200",component="apiserver",group="",resource="",scope="",subresource="/metrics",verb="GET",version=""} 4',
    'apiserver_request_total_other{verb="GET"} 1000',
    'apiserver_request_duration_seconds_count{verb="GET"} 99',
  ].join('\n');

  it('sums the series of resource requests only', () => {
    expect(counterTotal(text, 'apiserver_request_total')).toBe(42);
  });

  it('is undefined when the server has no such counter', () => {
    expect(
      counterTotal('process_cpu_seconds_total 3\n', 'apiserver_request_total'),
    ).toBeUndefined();
  });
});

describe('targetFromKubeconfig', () => {
  let dir = '';
  afterEach(() => {
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  it('reads a bearer token with an inline CA, and a client certificate from files', () => {
    dir = mkdtempSync(join(tmpdir(), 'bench-kubeconfig-'));
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    writeFileSync(
      join(dir, 'token.kubeconfig'),
      `apiVersion: v1
kind: Config
current-context: b
contexts:
- {name: a, context: {cluster: other, user: other}}
- {name: b, context: {cluster: box, user: admin}}
clusters:
- {name: other, cluster: {server: "https://127.0.0.1:1"}}
- {name: box, cluster: {server: "https://127.0.0.1:6443", certificate-authority-data: ${b64('CA PEM')}}}
users:
- {name: admin, user: {token: secret-token}}
`,
    );
    expect(targetFromKubeconfig(join(dir, 'token.kubeconfig'))).toEqual({
      url: 'https://127.0.0.1:6443',
      ca: 'CA PEM',
      token: 'secret-token',
    });
    writeFileSync(join(dir, 'ca.crt'), 'CA FILE');
    writeFileSync(join(dir, 'admin.crt'), 'CERT');
    writeFileSync(join(dir, 'admin.key'), 'KEY');
    writeFileSync(
      join(dir, 'cert.kubeconfig'),
      `clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", certificate-authority: ca.crt}}]
users: [{name: u, user: {client-certificate: admin.crt, client-key: ${join(dir, 'admin.key')}}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
`,
    );
    expect(targetFromKubeconfig(join(dir, 'cert.kubeconfig'))).toEqual({
      url: 'https://127.0.0.1:1',
      ca: 'CA FILE',
      cert: 'CERT',
      key: 'KEY',
    });
  });
});
