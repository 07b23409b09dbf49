/**
 * kube-apiserver's request metrics on prom-client, with upstream's names, types, labels and
 * buckets: `apiserver_request_total`, `apiserver_request_duration_seconds`,
 * `apiserver_longrunning_requests` (open watches) and `apiserver_current_inflight_requests`
 * (readOnly / mutating), plus the process's default metrics. Implements the API server's
 * RequestMetrics port (src/ports/request-metrics.ts).
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type {
  RequestLabels,
  RequestMetrics,
  RequestObservation,
} from '../ports/request-metrics.js';
import { collectProcessMetrics } from './prom-process-metrics.js';

const DurationBuckets = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45,
  60,
];

const ReadOnlyVerbs = new Set(['GET', 'LIST', 'WATCH']);

const RequestLabelNames = [
  'verb',
  'dry_run',
  'group',
  'version',
  'resource',
  'subresource',
  'scope',
  'component',
] as const;

export class PromApiServerMetrics implements RequestMetrics {
  readonly registry: Registry = new Registry();
  readonly #requests: Counter;
  readonly #duration: Histogram;
  readonly #longRunning: Gauge;
  readonly #inflight: Gauge;

  /** `registry`: where the metrics go (default: a registry of their own, with process metrics). */
  constructor(registry?: Registry) {
    if (registry !== undefined) this.registry = registry;
    else collectProcessMetrics(this.registry);
    const registers = [this.registry];
    this.#requests = new Counter({
      name: 'apiserver_request_total',
      help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      labelNames: [...RequestLabelNames, 'code'],
      registers,
    });
    this.#duration = new Histogram({
      name: 'apiserver_request_duration_seconds',
      help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      labelNames: RequestLabelNames,
      buckets: DurationBuckets,
      registers,
    });
    this.#longRunning = new Gauge({
      name: 'apiserver_longrunning_requests',
      help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
      labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
      registers,
    });
    this.#inflight = new Gauge({
      name: 'apiserver_current_inflight_requests',
      help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
      labelNames: ['request_kind'],
      registers,
    });
    this.#inflight.set({ request_kind: 'readOnly' }, 0);
    this.#inflight.set({ request_kind: 'mutating' }, 0);
  }

  begin(labels: RequestLabels): RequestObservation {
    const kind = ReadOnlyVerbs.has(labels.verb) ? 'readOnly' : 'mutating';
    this.#inflight.inc({ request_kind: kind });
    const longRunningLabels = {
      verb: labels.verb,
      group: labels.group,
      version: labels.version,
      resource: labels.resource,
      subresource: labels.subresource,
      scope: labels.scope,
      component: labels.component,
    };
    let running = false;
    let ended = false;
    return {
      longRunning: () => {
        running = true;
        this.#longRunning.inc(longRunningLabels);
      },
      end: (code, seconds) => {
        if (ended) return;
        ended = true;
        this.#inflight.dec({ request_kind: kind });
        if (running) this.#longRunning.dec(longRunningLabels);
        this.#requests.inc({ ...labels, code: String(code) });
        this.#duration.observe(labels, seconds);
      },
    };
  }

  async expose(): Promise<{ readonly contentType: string; readonly body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
