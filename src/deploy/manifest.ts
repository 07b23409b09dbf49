/**
 * One object of `deploy/`, as `kubectl apply -f` reads it: apiVersion, kind, metadata and the
 * kind's own fields. Plain JSON, so the same objects can be written as YAML and applied by code.
 */
export interface Manifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly [field: string]: unknown;
}
