import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock, flushAsync } from '../../test/support/fake-clock.js';
import { httpHealthzProbe } from '../adapters/http-healthz-probe.js';
import type { Logger } from '../ports/logger.js';
import { monitorKubeletHealth } from './kubelet-health-monitor.js';

let server: Server | undefined;

afterEach(async () => {
  await new Promise((resolve) => {
    if (server === undefined) resolve(undefined);
    else server.close(resolve);
  });
  server = undefined;
});

/** A kubelet healthz endpoint whose answer the test sets. */
async function kubelet(): Promise<{ url: string; answer: { status: number; body: string } }> {
  const answer = { status: 200, body: 'ok' };
  server = createServer((req, res) => {
    res.writeHead(req.url === '/healthz' ? answer.status : 404).end(answer.body);
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/healthz`, answer };
}

function recordingLogger(lines: string[]): Logger {
  const log: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (m) => lines.push(m),
    error: (m) => lines.push(m),
    child: () => log,
  };
  return log;
}

/** Moves the fake clock one interval and waits for the real HTTP round trip to finish. */
async function tick(clock: FakeClock, reports: number[], count: number): Promise<void> {
  await clock.advance(30_000);
  for (let i = 0; i < 200 && reports.length < count; i++) await flushAsync();
}

describe('the kubelet health monitor', () => {
  it('counts failures in a row in mcd_kubelet_state and resets on a good answer', async () => {
    const k = await kubelet();
    const clock = new FakeClock();
    const reports: number[] = [];
    const warnings: string[] = [];
    const stop = new AbortController();
    const done = monitorKubeletHealth(
      {
        probe: httpHealthzProbe(k.url),
        clock,
        log: recordingLogger(warnings),
        report: (n) => reports.push(n),
      },
      stop.signal,
    );
    expect(reports).toEqual([0]);
    await tick(clock, reports, 2);
    expect(reports).toEqual([0, 0]);
    k.answer.status = 500;
    k.answer.body = '[-]syncloop failed\nhealthz check failed';
    await tick(clock, reports, 3);
    await tick(clock, reports, 4);
    expect(reports).toEqual([0, 0, 1, 2]);
    expect(warnings[1]).toBe(
      `Got an error from auxiliary tools: kubelet health check has failed 2 times: ${k.url}: 500 [-]syncloop failed\nhealthz check failed`,
    );
    k.answer.status = 200;
    k.answer.body = 'ok';
    await tick(clock, reports, 5);
    expect(reports[4]).toBe(0);
    // The kubelet is gone: a refused connection counts as well.
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
    await tick(clock, reports, 6);
    expect(reports[5]).toBe(1);
    expect(warnings[2]).toMatch(/has failed 1 times: fetch failed/);
    stop.abort();
    await done;
  });
});
