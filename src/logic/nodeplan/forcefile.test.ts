/**
 * The forcefile's decisions: when a sync updates (a Done node with a forcefile re-applies its
 * config), the annotation patch that keeps the Node's report true, how a preview reads it, and
 * the preview's plan with it (a drain and a reboot whatever the change is).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Annotation, DaemonState } from '../../api/machineconfiguration/v1/constants.js';
import { ign, mc } from '../../../test/support/machine-configs.js';
import {
  forceFileAnnotationPatch,
  ForceFilePending,
  forceFilePending,
  PendingForceFileReason,
  syncNeed,
} from './forcefile.js';
import { explainUpdate, knobsFromMachineConfiguration } from './plan-knobs.js';

const key = Annotation.forceFile;

describe('syncNeed', () => {
  it('a Done node on its desired config needs nothing, unless the forcefile asks to re-apply it', () => {
    const done = { current: 'rendered-a', desired: 'rendered-a', state: DaemonState.Done };
    expect(syncNeed({ ...done, forceFile: false })).toEqual({ kind: 'none' });
    expect(syncNeed({ ...done, forceFile: true })).toEqual({
      kind: 'update',
      forced: true,
      reapply: true,
      reason: '/run/machine-config-daemon-force exists: re-applying rendered-a with a reboot',
    });
  });

  it('a new desired config or a node not Done updates, forced only with the forcefile', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('rendered-a', 'rendered-b'),
        fc.constantFrom(...Object.values(DaemonState), undefined),
        fc.boolean(),
        (desired, state, forceFile) => {
          const need = syncNeed({ current: 'rendered-a', desired, state, forceFile });
          const idle = desired === 'rendered-a' && state === DaemonState.Done;
          if (idle && !forceFile) expect(need.kind).toBe('none');
          else {
            expect(need).toMatchObject({ kind: 'update', forced: forceFile, reapply: idle });
          }
        },
      ),
    );
  });
});

describe('forceFileAnnotationPatch', () => {
  it('sets the report while the file exists, clears it only once settled', () => {
    expect(forceFileAnnotationPatch({}, true, false)).toEqual({ [key]: ForceFilePending });
    expect(forceFileAnnotationPatch({}, true, true)).toEqual({ [key]: ForceFilePending });
    expect(forceFileAnnotationPatch({ [key]: ForceFilePending }, true, true)).toBeUndefined();
    // a value it did not write is corrected
    expect(forceFileAnnotationPatch({ [key]: 'false' }, true, false)).toEqual({
      [key]: ForceFilePending,
    });
    // the forced update under way (file consumed, not Done yet): still reported
    expect(forceFileAnnotationPatch({ [key]: ForceFilePending }, false, false)).toBeUndefined();
    expect(forceFileAnnotationPatch({ [key]: ForceFilePending }, false, true)).toEqual({
      [key]: null,
    });
    expect(forceFileAnnotationPatch({ [key]: '' }, false, true)).toEqual({ [key]: null });
    expect(forceFileAnnotationPatch({}, false, true)).toBeUndefined();
  });
});

describe('forceFilePending', () => {
  it('any value of the annotation counts; other annotations do not', () => {
    expect(forceFilePending(undefined)).toBe(false);
    expect(forceFilePending({})).toBe(false);
    expect(forceFilePending({ [Annotation.state]: 'Done' })).toBe(false);
    expect(forceFilePending({ [key]: ForceFilePending })).toBe(true);
    expect(forceFilePending({ [key]: 'garbage' })).toBe(true);
  });
});

describe('the preview with a pending forcefile', () => {
  const knobs = knobsFromMachineConfiguration(undefined);
  const base = mc('rendered-worker-a', undefined, {
    config: ign({
      passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['ssh-ed25519 AAAA a'] }] },
    }),
  });
  const keyChange = mc('rendered-worker-b', undefined, {
    config: ign({
      passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['ssh-ed25519 BBBB b'] }] },
    }),
  });

  it('an SSH key change is rebootless without it and a drain and reboot with it', () => {
    const plain = explainUpdate(base, keyChange, knobs);
    expect(plain.ok && plain.value).toMatchObject({ drain: false, reboot: false, forced: false });
    const forced = explainUpdate(base, keyChange, knobs, true);
    expect(forced.ok && forced.value).toMatchObject({
      drain: true,
      reboot: true,
      forced: true,
      actions: ['Reboot'],
    });
  });

  it('even with no change at all the node re-applies and reboots', () => {
    const same = explainUpdate(base, base, knobs, true);
    expect(same.ok && same.value).toMatchObject({ drain: true, reboot: true, forced: true });
  });

  it('says why', () => {
    expect(PendingForceFileReason).toBe(
      'forcefile pending (/run/machine-config-daemon-force): the node re-applies its config and reboots',
    );
  });
});
