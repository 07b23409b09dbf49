/**
 * The dashboard page: the cluster's release, pools (with their actions), nodes, image builds, the
 * config diff and events, kept live by the snapshot stream (no reload); `#/nodes/NAME` is one
 * node's detail. Everything it shows is computed by the server (src/dashboard); this only lays it
 * out. Actions go with the token the user gives in the header, kept for this tab only.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import {
  saveToken,
  savedToken,
  watchSnapshots,
  type Connection,
  type DashboardSnapshot,
} from './api.js';
import { BuildsPanel } from './builds-panel.js';
import { ClusterPanel } from './cluster-panel.js';
import { DiffView } from './diff-view.js';
import { Events } from './events.js';
import { NodeDetailPage } from './node-detail-page.js';
import { Nodes } from './nodes.js';
import { Pools } from './pools.js';
import { TokenBox } from './token-box.js';
import './style.css';

/** The node a `#/nodes/NAME` hash names, if it names one. */
function routeNode(hash: string): string | undefined {
  const m = /^#\/nodes\/([^/]+)$/.exec(hash);
  if (m?.[1] === undefined) return undefined;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return undefined;
  }
}

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => {
      setHash(location.hash);
      window.scrollTo(0, 0);
    };
    window.addEventListener('hashchange', on);
    return () => {
      window.removeEventListener('hashchange', on);
    };
  }, []);
  return hash;
}

function App() {
  const [snapshot, setSnapshot] = useState<DashboardSnapshot | undefined>(undefined);
  const [connection, setConnection] = useState<Connection>('connecting');
  const [token, setToken] = useState(savedToken);
  useEffect(() => watchSnapshots(setSnapshot, setConnection), []);
  const node = routeNode(useHash());
  const chooseToken = (t: string) => {
    saveToken(t);
    setToken(t);
  };
  return (
    <>
      <header class="top">
        <h1>
          <a href="#/">Machine Config Operator</a>
        </h1>
        <span class={`conn conn-${connection}`} data-testid="connection">
          {connection}
        </span>
        <TokenBox token={token} onToken={chooseToken} />
      </header>
      {snapshot === undefined ? (
        <p class="empty">Connecting to the cluster…</p>
      ) : node !== undefined ? (
        <NodeDetailPage name={node} snapshot={snapshot} token={token} />
      ) : (
        <main>
          <section>
            <h2>Cluster</h2>
            <ClusterPanel snapshot={snapshot} token={token} />
          </section>
          <section>
            <h2>Machine config pools</h2>
            <Pools pools={snapshot.pools} token={token} />
          </section>
          <section>
            <h2>Nodes</h2>
            <div class="scroll-x">
              <Nodes nodes={snapshot.nodes} />
            </div>
          </section>
          <section>
            <h2>Image builds</h2>
            <BuildsPanel token={token} />
          </section>
          <section>
            <h2>Rendered config diff</h2>
            <DiffView pools={snapshot.pools} />
          </section>
          <section>
            <h2>Events</h2>
            <Events snapshot={snapshot} />
          </section>
        </main>
      )}
    </>
  );
}

const root = document.getElementById('app');
if (root !== null) render(<App />, root);
