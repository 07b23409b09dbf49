/**
 * Samples a pool's rollout from outside, as an administrator would watch it: lists the role's
 * nodes every 100 ms and keeps the largest number unavailable at once (upstream's
 * IsUnavailableForUpdate), and every Updated/Updating condition text the pool showed.
 */
import type { Node } from '../../src/api/core/v1/node.js';
import { Annotation } from '../../src/api/machineconfiguration/v1/constants.js';
import type { MachineConfigPool } from '../../src/api/machineconfiguration/v1/machine-config-pool.js';
import { Resources } from '../../src/api/resource-refs.js';
import { isUnavailableForUpdate } from '../../src/logic/rollout/node-state.js';
import type { ResourceClient } from '../../src/ports/resource-client.js';

function condition(pool: MachineConfigPool | undefined, type: string) {
  return pool?.status?.conditions?.find((c) => c.type === type);
}

export class Sampler {
  maxUnavailable = 0;
  samples = 0;
  /** The nodes unavailable at the worst sample, for the failure message. */
  worst: string[] = [];
  readonly seen = new Set<string>();
  readonly #timer: NodeJS.Timeout;
  readonly #client: ResourceClient;
  readonly #role: string;
  readonly #pool: string;
  #busy = false;

  constructor(client: ResourceClient, role: string, pool: string) {
    this.#client = client;
    this.#role = role;
    this.#pool = pool;
    this.#timer = setInterval(() => {
      void this.#tick();
    }, 100);
  }

  async #tick(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      const nodes = await this.#client.list<Node>(Resources.node, {
        labelSelector: `node-role.kubernetes.io/${this.#role}`,
      });
      const unavailable = nodes.items.filter(isUnavailableForUpdate);
      if (unavailable.length > this.maxUnavailable) {
        this.maxUnavailable = unavailable.length;
        this.worst = unavailable.map((n) => {
          const a = n.metadata.annotations ?? {};
          const ready = n.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? '';
          return `${n.metadata.name ?? ''} cur=${a[Annotation.currentConfig] ?? ''} des=${a[Annotation.desiredConfig] ?? ''} state=${a[Annotation.state] ?? ''} drain=${a[Annotation.desiredDrain] ?? ''}/${a[Annotation.lastAppliedDrain] ?? ''} unsched=${String(n.spec?.unschedulable ?? false)} ready=${ready}`;
        });
      }
      this.samples++;
      const pool = await this.#client.get<MachineConfigPool>(
        Resources.machineConfigPool,
        this.#pool,
      );
      for (const type of ['Updated', 'Updating']) {
        const c = condition(pool, type);
        if (c !== undefined) this.seen.add(`${type}=${c.status}: ${c.message ?? ''}`);
      }
    } catch {
      // a failed read is no sample
    } finally {
      this.#busy = false;
    }
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
