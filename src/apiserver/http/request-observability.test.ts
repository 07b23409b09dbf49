import { describe, expect, it } from 'vitest';
import { recordingLogger } from '../../../test/support/mcs-test-inputs.js';
import { OpenStreams } from './open-streams.js';
import { requestInfo, type ResourceInfo } from './request-info.js';
import type { RequestLabels, RequestMetrics } from '../../ports/request-metrics.js';
import { requestLabels } from './request-metrics.js';
import { newTestApp } from '../../../test/support/apiserver-test-app.js';

const MCO = 'machineconfiguration.openshift.io';

function labelsOf(
  method: string,
  path: string,
  headers: Record<string, string> = {},
): RequestLabels {
  const url = new URL(`https://h${path}`);
  const info = requestInfo(method, url.pathname, url.searchParams) as ResourceInfo;
  return requestLabels(info, new Request(url, { method, headers }), url);
}

/** Records what the app reports, in order. */
function recordingMetrics(): RequestMetrics & { readonly events: string[] } {
  const events: string[] = [];
  return {
    events,
    begin: (labels) => ({
      longRunning: () => events.push(`longrunning ${labels.verb} ${labels.resource}`),
      end: (code) => events.push(`end ${labels.verb} ${labels.resource} ${code}`),
    }),
    expose: () =>
      Promise.resolve({ contentType: 'text/plain; version=0.0.4', body: 'x_total 1\n' }),
  };
}

describe('request labels', () => {
  it.each<[string, string, Record<string, string>, Partial<RequestLabels>]>([
    ['GET', '/api/v1/nodes', {}, { verb: 'LIST', scope: 'cluster', resource: 'nodes', group: '' }],
    ['GET', '/api/v1/nodes?watch=true', {}, { verb: 'WATCH', scope: 'cluster' }],
    ['GET', '/api/v1/namespaces/default/pods', {}, { verb: 'LIST', scope: 'namespace' }],
    ['GET', '/api/v1/nodes/n1', {}, { verb: 'GET', scope: 'resource' }],
    ['POST', '/api/v1/namespaces/default/pods', {}, { verb: 'POST', scope: 'resource' }],
    [
      'PUT',
      `/apis/${MCO}/v1/machineconfigpools/w/status`,
      {},
      { verb: 'PUT', subresource: 'status', group: MCO },
    ],
    [
      'PATCH',
      '/api/v1/nodes/n1',
      { 'Content-Type': 'application/merge-patch+json' },
      { verb: 'PATCH' },
    ],
    [
      'PATCH',
      '/api/v1/nodes/n1?dryRun=All',
      { 'Content-Type': 'application/apply-patch+yaml' },
      { verb: 'APPLY', dry_run: 'All' },
    ],
    ['DELETE', '/api/v1/nodes?dryRun=Nope', {}, { verb: 'DELETECOLLECTION', dry_run: 'invalid' }],
  ])('%s %s', (method, path, headers, expected) => {
    expect(labelsOf(method, path, headers)).toMatchObject({ ...expected, component: 'apiserver' });
  });
});

describe('request metrics, logs and shutdown', () => {
  it('logs one line per request with verb, URI, status, latency and user', async () => {
    const log = recordingLogger();
    const t = await newTestApp({ log });
    await t.call('/api/v1/nodes/nosuch', { headers: { 'User-Agent': 'kubectl/v1.32.5' } });
    const lines = log.entries.filter((e) => e.message === 'HTTP');
    expect(lines).toHaveLength(1);
    expect(lines[0]?.fields).toMatchObject({
      verb: 'GET',
      URI: '/api/v1/nodes/nosuch',
      resp: 404,
      user: 'admin',
      userAgent: 'kubectl/v1.32.5',
    });
    expect(String(lines[0]?.fields?.['latency'])).toMatch(/^\d+\.\d{3}ms$/);
  });

  it('serves /metrics from the metrics port; counts a watch once, when it ends on shutdown', async () => {
    const metrics = recordingMetrics();
    const streams = new OpenStreams();
    const t = await newTestApp({ metrics, streams });
    const res = await t.call('/metrics');
    expect(res.headers.get('Content-Type')).toBe('text/plain; version=0.0.4');
    expect(await res.text()).toBe('x_total 1\n');
    await t.call('/api/v1/nodes');
    const watch = await t.call('/api/v1/nodes?watch=true');
    expect(metrics.events).toEqual(['end LIST nodes 200', 'longrunning WATCH nodes']);
    expect(streams.count).toBe(1);
    const body = watch.text();
    await streams.closeAll(1000);
    // the stream ended (no cut): every event line complete
    expect(await body).toMatch(/^(\{.*\}\n)*$/);
    expect(streams.count).toBe(0);
    expect(metrics.events).toEqual([
      'end LIST nodes 200',
      'longrunning WATCH nodes',
      'end WATCH nodes 200',
    ]);
  });
});
