import { describe, expect, it } from 'vitest';
import { doctorText, parseDoctorScope } from './doctor-command.js';

describe('parseDoctorScope', () => {
  it.each([
    [undefined, {}],
    ['mcp/worker', { pool: 'worker' }],
    ['machineconfigpool/infra', { pool: 'infra' }],
    ['node/worker-0', { node: 'worker-0' }],
    ['no/worker-0', { node: 'worker-0' }],
  ])('%s → %o', (arg, scope) => {
    expect(parseDoctorScope(arg)).toEqual(scope);
  });

  it.each(['worker', 'mcp/', 'mcp/a/b', 'pod/x', '/worker', 'mcp/../x'])('refuses %s', (arg) => {
    expect(() => parseDoctorScope(arg)).toThrow(/expected mcp\/NAME or node\/NAME/);
  });
});

describe('doctorText', () => {
  it('prints each node with its phase, age, blockers and fixes, and notes', () => {
    const text = doctorText(
      {
        pools: [
          {
            pool: 'master',
            target: 'rendered-master-a',
            updated: 1,
            total: 1,
            stuck: false,
            blockers: [],
            nodes: [],
          },
          {
            pool: 'worker',
            target: 'rendered-worker-b',
            updated: 0,
            total: 2,
            stuck: true,
            blockers: [],
            nodes: [
              {
                node: 'worker-0',
                phase: 'Degraded',
                since: '2026-01-01T00:00:00Z',
                stuck: true,
                blockers: [
                  {
                    kind: 'Degraded',
                    object: 'node/worker-0',
                    why: 'broke',
                    fix: 'mco logs node/worker-0',
                  },
                ],
              },
              { node: 'worker-1', phase: 'Waiting', stuck: false, blockers: [] },
            ],
          },
        ],
        notes: ['certificatesigningrequests: forbidden to list them'],
      },
      Date.parse('2026-01-01T01:02:03Z'),
    );
    expect(text).toBe(
      [
        'mcp/master: 1 of 1 nodes on rendered-master-a; nothing is stuck',
        'mcp/worker: 0 of 2 nodes on rendered-worker-b; stuck',
        '  worker-0  Degraded since 2026-01-01T00:00:00Z (1h2m)',
        '    blocked by node/worker-0 (Degraded): broke',
        '      fix: mco logs node/worker-0',
        '  worker-1  Waiting: waits for its turn (maxUnavailable): nothing in its way',
        'note: certificatesigningrequests: forbidden to list them',
        '',
      ].join('\n'),
    );
  });
});
