/** The node table: state, current/desired config and the MachineConfigNode phase per node. */
import type { JSX } from 'preact';
import type { NodeView } from './api.js';

function stateClass(n: NodeView): string {
  if (n.state === 'Degraded' || n.state === 'Unreconcilable') return 'state-bad';
  if (n.current !== n.desired || n.state === 'Working') return 'state-busy';
  return 'state-ok';
}

export function Nodes({ nodes }: { nodes: readonly NodeView[] }): JSX.Element {
  if (nodes.length === 0) return <p class="empty">No nodes yet.</p>;
  return (
    <table class="nodes" data-testid="nodes">
      <thead>
        <tr>
          <th>node</th>
          <th>pool</th>
          <th>ready</th>
          <th>state</th>
          <th>current config</th>
          <th>desired config</th>
          <th>update phase</th>
        </tr>
      </thead>
      <tbody>
        {nodes.map((n) => (
          <tr key={n.name} data-testid={`node-${n.name}`} class={stateClass(n)}>
            <td>
              <a href={`#/nodes/${encodeURIComponent(n.name)}`} data-testid={`node-link-${n.name}`}>
                {n.name}
              </a>
              {n.unschedulable ? <span class="tag">cordoned</span> : null}
            </td>
            <td>{n.pool || '—'}</td>
            <td>{n.ready ? 'Ready' : 'NotReady'}</td>
            <td title={n.reason}>{n.state || '—'}</td>
            <td class="mono">{n.current || '—'}</td>
            <td class={`mono${n.current === n.desired ? '' : ' differs'}`}>{n.desired || '—'}</td>
            <td title={n.phaseMessage}>
              {n.phase}
              {n.phaseStatus === 'Unknown' ? ' …' : ''}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
