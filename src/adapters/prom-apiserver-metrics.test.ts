import { describe, expect, it } from 'vitest';
import { PromApiServerMetrics } from './prom-apiserver-metrics.js';

const labels = {
  verb: 'WATCH',
  dry_run: '',
  group: '',
  version: 'v1',
  resource: 'nodes',
  subresource: '',
  scope: 'cluster',
  component: 'apiserver',
};

describe('PromApiServerMetrics', () => {
  it("exposes kube-apiserver's names and labels; a long-running request is a gauge until it ends", async () => {
    const metrics = new PromApiServerMetrics();
    const watch = metrics.begin(labels);
    watch.longRunning();
    let { body } = await metrics.expose();
    expect(body).toContain(
      'apiserver_longrunning_requests{verb="WATCH",group="",version="v1",resource="nodes",subresource="",scope="cluster",component="apiserver"} 1',
    );
    expect(body).toContain('apiserver_current_inflight_requests{request_kind="readOnly"} 1');
    watch.end(200, 0.3);
    watch.end(200, 0.3);
    ({ body } = await metrics.expose());
    expect(body).toContain(
      'apiserver_request_total{verb="WATCH",dry_run="",group="",version="v1",resource="nodes",subresource="",scope="cluster",component="apiserver",code="200"} 1',
    );
    expect(body).toContain('apiserver_request_duration_seconds_bucket{le="0.4",verb="WATCH"');
    expect(body).toContain(
      'apiserver_longrunning_requests{verb="WATCH",group="",version="v1",resource="nodes",subresource="",scope="cluster",component="apiserver"} 0',
    );
    expect(body).toContain('process_start_time_seconds');
    expect(body).not.toContain('nodejs_active_handles_total');
  });
});
