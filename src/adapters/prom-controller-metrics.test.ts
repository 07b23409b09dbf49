import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/support/fake-clock.js';
import { silentLogger } from '../ports/logger.js';
import { Controller } from '../runtime/controller.js';
import { TerminalError } from '../runtime/reconciler.js';
import { createPromControllerMetrics } from './prom-controller-metrics.js';

describe('createPromControllerMetrics', () => {
  it("exposes a controller's reconciles under controller-runtime's names", async () => {
    const registry = new Registry();
    const clock = new FakeClock();
    const controller = new Controller({
      name: 'render',
      clock,
      log: silentLogger,
      workers: 2,
      metrics: createPromControllerMetrics(registry),
      rateLimiter: { baseDelayMs: 10_000, maxDelayMs: 10_000 },
      reconciler: {
        reconcile: async (key) => {
          await clock.sleep(250);
          if (key === 'bad') throw new TerminalError('bad input');
          if (key === 'flaky') throw new Error('try again');
          return {};
        },
      },
    });
    const abort = new AbortController();
    const running = controller.run(abort.signal);
    controller.enqueue('ok');
    controller.enqueue('bad');
    await clock.advance(300);
    controller.enqueue('flaky');
    await clock.advance(300);
    abort.abort();
    await running;

    const text = await registry.metrics();
    const lines = text
      .split('\n')
      .filter((l) => l !== '' && !l.startsWith('#') && !l.includes('_bucket'));
    expect(lines).toEqual([
      'controller_runtime_reconcile_total{controller="render",result="success"} 1',
      'controller_runtime_reconcile_total{controller="render",result="error"} 2',
      'controller_runtime_reconcile_errors_total{controller="render"} 2',
      'controller_runtime_terminal_reconcile_errors_total{controller="render"} 1',
      'controller_runtime_reconcile_time_seconds_sum{controller="render"} 0.75',
      'controller_runtime_reconcile_time_seconds_count{controller="render"} 3',
      'controller_runtime_active_workers{controller="render"} 0',
      'controller_runtime_max_concurrent_reconciles{controller="render"} 2',
      'workqueue_depth{name="render"} 0',
      'workqueue_adds_total{name="render"} 3',
      'workqueue_retries_total{name="render"} 1',
    ]);
  });
});
