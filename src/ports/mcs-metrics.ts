/**
 * What the machine config server reports about `/config` requests. The process side implements
 * it with prom-client (src/adapters/prom-mcs-metrics.ts); tests record samples.
 */

export interface ConfigRequestSample {
  /** The pool asked for; `unknown` when the source does not know it (bounds label cardinality). */
  readonly pool: string;
  readonly status: number;
  /** The negotiated spec version; '' when the request was refused before negotiation. */
  readonly version: string;
  readonly seconds: number;
}

export interface McsMetrics {
  observeConfigRequest(sample: ConfigRequestSample): void;
}
