import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Three files at a time on two cores: the end-to-end files spend most of their time waiting on
    // the processes they start (boxes, registries, reboots), so a third file fills that wait.
    // Ports are reserved across workers (test/support/ports.ts); `--maxWorkers 1` runs them in turn.
    maxWorkers: 3,
  },
});
