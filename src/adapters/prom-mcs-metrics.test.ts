import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createPromMcsMetrics } from './prom-mcs-metrics.js';

describe('createPromMcsMetrics', () => {
  it('counts requests and observes latency by pool, status and version', async () => {
    const registry = new Registry();
    const m = createPromMcsMetrics(registry);
    m.observeConfigRequest({ pool: 'worker', status: 200, version: '3.3.0', seconds: 0.002 });
    m.observeConfigRequest({ pool: 'worker', status: 200, version: '3.3.0', seconds: 0.2 });
    m.observeConfigRequest({ pool: 'unknown', status: 405, version: '', seconds: 0 });
    const text = await registry.metrics();
    expect(text).toContain(
      'machine_config_server_requests_total{pool="worker",status="200",version="3.3.0"} 2',
    );
    expect(text).toContain(
      'machine_config_server_requests_total{pool="unknown",status="405",version=""} 1',
    );
    expect(text).toContain(
      'machine_config_server_request_duration_seconds_bucket{le="0.0025",pool="worker",status="200",version="3.3.0"} 1',
    );
    expect(text).toContain(
      'machine_config_server_request_duration_seconds_count{pool="worker",status="200",version="3.3.0"} 2',
    );
  });
});
