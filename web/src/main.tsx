/**
 * The dashboard page: pools, nodes, the config diff and events, kept live by the snapshot stream
 * (no reload). Everything it shows is computed by the server (src/dashboard); this only lays it out.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { watchSnapshots, type Connection, type DashboardSnapshot } from './api.js';
import { DiffView } from './diff-view.js';
import { Events } from './events.js';
import { Nodes } from './nodes.js';
import { Pools } from './pools.js';
import './style.css';

function App() {
  const [snapshot, setSnapshot] = useState<DashboardSnapshot | undefined>(undefined);
  const [connection, setConnection] = useState<Connection>('connecting');
  useEffect(() => watchSnapshots(setSnapshot, setConnection), []);
  return (
    <>
      <header class="top">
        <h1>Machine Config Operator</h1>
        <span class={`conn conn-${connection}`} data-testid="connection">
          {connection}
        </span>
      </header>
      {snapshot === undefined ? (
        <p class="empty">Connecting to the cluster…</p>
      ) : (
        <main>
          <section>
            <h2>Machine config pools</h2>
            <Pools pools={snapshot.pools} />
          </section>
          <section>
            <h2>Nodes</h2>
            <Nodes nodes={snapshot.nodes} />
          </section>
          <section>
            <h2>Rendered config diff</h2>
            <DiffView pools={snapshot.pools} />
          </section>
          <section>
            <h2>Events</h2>
            <Events events={snapshot.events} />
          </section>
        </main>
      )}
    </>
  );
}

const root = document.getElementById('app');
if (root !== null) render(<App />, root);
