/** Recent events, newest first. */
import type { JSX } from 'preact';
import type { EventView } from './api.js';

export function Events({ events }: { events: readonly EventView[] }): JSX.Element {
  if (events.length === 0) return <p class="empty">No events yet.</p>;
  return (
    <table class="events" data-testid="events">
      <thead>
        <tr>
          <th>time</th>
          <th>type</th>
          <th>reason</th>
          <th>object</th>
          <th>message</th>
        </tr>
      </thead>
      <tbody>
        {events.map((e, i) => (
          <tr
            key={`${e.time}-${e.object}-${e.reason}-${i}`}
            class={e.type === 'Warning' ? 'warning' : ''}
          >
            <td class="mono">{e.time.replace('T', ' ').replace('Z', '')}</td>
            <td>{e.type}</td>
            <td>{e.reason}</td>
            <td>{e.object}</td>
            <td>
              {e.message}
              {e.count > 1 ? <span class="tag">×{e.count}</span> : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
