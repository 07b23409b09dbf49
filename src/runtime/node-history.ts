/**
 * A node's update history as its ConfigMap holds it (controller/audit/update-audit-controller.ts writes it;
 * `mco node history` and `mco rollout history` read it): records that do not parse are left out.
 */
import { createHash } from 'node:crypto';
import type { ConfigMap } from '../api/core/v1/config-map.js';
import { McoNamespace } from '../api/machineconfiguration/v1/constants.js';
import { HistoryKey, type NodeUpdateRecord } from '../api/machineconfiguration/v1/update-audit.js';
import { isStatusError } from '../api/meta/v1/status-error.js';
import { Resources } from '../api/resource-refs.js';
import type { ResourceClient } from '../ports/resource-client.js';

/** The history ConfigMap of a node (names past 253 characters end in a digest). */
export function historyConfigMapName(node: string): string {
  const name = `node-history-${node}`;
  if (name.length <= 253) return name;
  const digest = createHash('sha256').update(node).digest('hex').slice(0, 16);
  return `node-history-${node.slice(0, 200)}-${digest}`;
}

function parseHistory(text: string | undefined): NodeUpdateRecord[] {
  if (text === undefined) return [];
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed)
      ? parsed.filter(
          (r): r is NodeUpdateRecord =>
            typeof r === 'object' &&
            r !== null &&
            typeof (r as NodeUpdateRecord).to === 'string' &&
            typeof (r as NodeUpdateRecord).doneAt === 'string' &&
            Array.isArray((r as NodeUpdateRecord).changes),
        )
      : [];
  } catch {
    return [];
  }
}

export async function readNodeHistory(
  client: ResourceClient,
  name: string,
  signal?: AbortSignal,
): Promise<{ readonly configMap: ConfigMap | undefined; readonly records: NodeUpdateRecord[] }> {
  try {
    const configMap = await client.get<ConfigMap>(Resources.configMap, name, McoNamespace, signal);
    return { configMap, records: parseHistory(configMap.data?.[HistoryKey]) };
  } catch (e) {
    if (isStatusError(e, 'NotFound')) return { configMap: undefined, records: [] };
    throw e;
  }
}
