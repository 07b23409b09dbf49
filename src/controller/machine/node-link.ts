/**
 * Node link, as machine-api's nodelink controller: once a Node registers, the Machine that names
 * it (an `InternalDNS` address equal to the node name) gives it its labels and taints
 * (`spec.metadata.labels`, `spec.taints`, added where missing) and the `machine.openshift.io/machine`
 * annotation, and records the Node in its `status.nodeRef`. This is how a node gets its role
 * without being allowed to claim one: the labels are written with the controller's identity.
 */
import type { Node, Taint } from '../../api/core/v1/node.js';
import {
  MachineAnnotation,
  machineNamesNode,
  normalizeDnsName,
  type Machine,
} from '../../api/machine/v1beta1/machine.js';
import { Resources } from '../../api/resource-refs.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { ResourceClient } from '../../ports/resource-client.js';
import { Controller } from '../../runtime/controller.js';
import type { Informer } from '../../runtime/informer.js';
import type { ReconcileResult, Reconciler } from '../../runtime/reconciler.js';

const NodeLinkName = 'machine-node-link';

export interface NodeLinkOptions {
  readonly client: ResourceClient;
  readonly machines: Informer<Machine>;
  readonly nodes: Informer<Node>;
  readonly clock: Clock;
  readonly log: Logger;
}

const sameTaint = (a: Taint, b: Taint): boolean => a.key === b.key && a.effect === b.effect;

/** What the Node lacks of its Machine's labels, annotation and taints (undefined: nothing). */
export function nodeLinkPatch(machine: Machine, node: Node): Record<string, unknown> | undefined {
  const labels = machine.spec?.metadata?.labels ?? {};
  const missingLabels = Object.fromEntries(
    Object.entries(labels).filter(([k, v]) => node.metadata.labels?.[k] !== v),
  );
  const ref = `${machine.metadata.namespace ?? ''}/${machine.metadata.name ?? ''}`;
  const annotate = node.metadata.annotations?.[MachineAnnotation] !== ref;
  const current = node.spec?.taints ?? [];
  const missingTaints = (machine.spec?.taints ?? []).filter(
    (t) => !current.some((c) => sameTaint(c, t)),
  );
  const metadata: Record<string, unknown> = {};
  if (Object.keys(missingLabels).length > 0) metadata['labels'] = missingLabels;
  if (annotate) metadata['annotations'] = { [MachineAnnotation]: ref };
  const patch: Record<string, unknown> = {};
  if (Object.keys(metadata).length > 0) patch['metadata'] = metadata;
  if (missingTaints.length > 0) patch['spec'] = { taints: [...current, ...missingTaints] };
  return Object.keys(patch).length > 0 ? patch : undefined;
}

class NodeLink implements Reconciler {
  readonly #o: NodeLinkOptions;

  constructor(options: NodeLinkOptions) {
    this.#o = options;
  }

  async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    const node = this.#o.nodes.get(key);
    if (node === undefined) return undefined;
    const machine = this.#o.machines.list().find((m) => machineNamesNode(m, key));
    if (machine === undefined) return undefined;
    const patch = nodeLinkPatch(machine, node);
    if (patch !== undefined) {
      await this.#o.client.patch(Resources.node, key, patch, 'merge', { signal });
      this.#o.log.info('labelled the node from its machine', {
        node: key,
        machine: machine.metadata.name,
        labels: Object.keys(machine.spec?.metadata?.labels ?? {}),
      });
    }
    const ref = machine.status?.nodeRef;
    if (ref?.name !== key || ref.uid !== node.metadata.uid) {
      await this.#o.client.patch(
        Resources.machine,
        machine.metadata.name ?? '',
        { status: { nodeRef: { kind: 'Node', name: key, uid: node.metadata.uid } } },
        'merge',
        { namespace: machine.metadata.namespace ?? '', subresource: 'status', signal },
      );
    }
    return undefined;
  }
}

export function createNodeLink(options: NodeLinkOptions): Controller {
  return new Controller({
    name: NodeLinkName,
    reconciler: new NodeLink(options),
    clock: options.clock,
    log: options.log,
  })
    .watch(options.nodes, {
      // heartbeats change nothing node link looks at
      updatePredicate: (a, b) =>
        JSON.stringify([a.metadata.labels, a.metadata.annotations, a.spec?.taints]) !==
        JSON.stringify([b.metadata.labels, b.metadata.annotations, b.spec?.taints]),
    })
    .watch(options.machines, {
      map: (m) =>
        (m.status?.addresses ?? [])
          .filter((a) => a.type === 'InternalDNS')
          .map((a) => normalizeDnsName(a.address)),
    });
}
