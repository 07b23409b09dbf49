/**
 * The plain-folder Host the daemon's unit tests use passes the same Host contract as the ostree
 * and CoreOS hosts, so the daemon sees through it what it would see on a real host.
 */
import { describeHostContract } from './host-contract.js';
import { createPlainHost, plainChecksum } from './plain-host.js';

describeHostContract('plain host', () => {
  const p = createPlainHost();
  return Promise.resolve({
    host: p.host,
    user: 'core',
    stageableImage: 'plain:v2',
    stageableChecksum: plainChecksum('plain:v2'),
    reboot: () => {
      p.reboot();
      return Promise.resolve();
    },
    takeRebootRequest: () => Promise.resolve(p.takeRebootRequests().at(-1)),
    dispose: () => {
      p.dispose();
      return Promise.resolve();
    },
  });
});
