/**
 * The API server's request metrics: one observation per resource request, labelled as
 * kube-apiserver's instrumentation labels it (src/apiserver/http/request-metrics.ts derives the
 * labels). The prom-client implementation (src/adapters/prom-apiserver-metrics.ts) uses
 * upstream's names and buckets.
 */

export type RequestLabels = Readonly<
  Record<
    'verb' | 'dry_run' | 'group' | 'version' | 'resource' | 'subresource' | 'scope' | 'component',
    string
  >
>;

/** One request in flight: it may turn long-running (a watch); `end` records it once. */
export interface RequestObservation {
  longRunning(): void;
  end(code: number, seconds: number): void;
}

export interface RequestMetrics {
  begin(labels: RequestLabels): RequestObservation;
  /** The exposition `/metrics` answers with. */
  expose(): Promise<{ readonly contentType: string; readonly body: string }>;
}
