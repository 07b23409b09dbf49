import { describe, expect, it } from 'vitest';
import type { NodeUpdateRecord } from '../api/machineconfiguration/v1/update-audit.js';
import { CliError } from '../shell/cli-io.js';
import { nodeHistoryTable, parseNodeArgument } from './node-history-command.js';

describe('mco node history', () => {
  it('takes node/NAME or node NAME, and refuses anything else before reading', () => {
    expect(parseNodeArgument(['node/worker-0'])).toBe('worker-0');
    expect(parseNodeArgument(['nodes', 'worker-0'])).toBe('worker-0');
    for (const bad of [['pod/x'], ['node/'], ['node/../x'], ['node/a/b'], []])
      expect(() => parseNodeArgument(bad), bad.join(' ')).toThrow(CliError);
  });

  it('prints one row per update, and says so when there is none', () => {
    const r: NodeUpdateRecord = {
      node: 'worker-0',
      pool: 'worker',
      from: 'rendered-worker-a',
      to: 'rendered-worker-b',
      startedAt: '2026-12-08T00:00:00.000Z',
      doneAt: '2026-12-08T00:01:00.000Z',
      actions: ['Reboot'],
      drained: true,
      rebooted: true,
      changes: [
        {
          name: '50-a',
          change: 'changed',
          changed: { by: 'alice', at: '2026-12-07T23:59:00Z', source: 'admission' },
        },
      ],
      diff: 'files /etc/a',
    };
    expect(nodeHistoryTable('worker-0', [r])).toBe(
      'node/worker-0\n' +
        'DONE                      FROM               TO                 DID                         WHY                                            DIFF\n' +
        '2026-12-08T00:01:00.000Z  rendered-worker-a  rendered-worker-b  drained, rebooted (Reboot)  50-a changed by alice at 2026-12-07T23:59:00Z  files /etc/a\n',
    );
    expect(nodeHistoryTable('worker-0', [])).toBe(
      'node/worker-0: no update recorded yet (the audit records updates done since it was enabled)\n',
    );
  });
});
