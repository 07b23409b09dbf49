import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { hostOsLabels, promDaemonMetrics } from './prom-daemon-metrics.js';

describe('the daemon metrics on prom-client', () => {
  it('serves mcd_pivot_errors_total as a gauge set back to 0 after a good OS step', async () => {
    const registry = new Registry();
    const m = promDaemonMetrics(
      registry,
      'NAME="Red Hat Enterprise Linux CoreOS"\nID="rhcos"\nVERSION_ID="4.16"\n',
    );
    m.pivotError();
    m.pivotError();
    let text = await registry.metrics();
    expect(text).toContain('# TYPE mcd_pivot_errors_total gauge\n');
    expect(text).toContain('mcd_pivot_errors_total 2\n');
    m.pivotSucceeded();
    text = await registry.metrics();
    expect(text).toContain('mcd_pivot_errors_total 0\n');
    expect(text).toContain('# TYPE mcd_reboots_failed_total counter\n');
    expect(text).toContain('mcd_host_os_and_version{os="RHCOS",version="4.16"} 1\n');
  });

  it('labels the host OS as upstream does, unsupported when it cannot tell', () => {
    expect(hostOsLabels('ID=fedora\nVERSION_ID=40\n')).toEqual({ os: 'FEDORA', version: '40' });
    expect(hostOsLabels("ID='testos'\n")).toEqual({ os: 'TESTOS', version: '' });
    expect(hostOsLabels(undefined)).toEqual({ os: 'unsupported', version: '' });
    expect(hostOsLabels('NAME=x\n')).toEqual({ os: 'unsupported', version: '' });
  });
});
