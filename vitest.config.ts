import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files that assert how fast or how small the server stays under load (/readyz latency and RSS
 * while a watch replays 100 MB): they run after the rest, alone, so the load they measure is their
 * own and not three other files'.
 */
const Alone = ['test/e2e/apiserver-limits.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'parallel',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...Alone],
          // Three files at a time on two cores: the end-to-end files spend most of their time
          // waiting on the processes they start (boxes, registries, reboots), so a third file fills
          // that wait. Ports are reserved across workers (test/support/ports.ts).
          maxWorkers: 3,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'alone',
          include: Alone,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
