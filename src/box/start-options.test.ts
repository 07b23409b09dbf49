import { describe, expect, it } from 'vitest';
import { portRangeProblem } from './cluster-ports.js';
import { checkStartOptions, wholeNumber, type StartOptions } from './start-options.js';

const options = (o: Partial<StartOptions>): StartOptions => ({
  dataDir: '/nowhere',
  masters: 1,
  workers: 2,
  portBase: 26443,
  explicit: new Set(),
  ...o,
});

describe('mco start options', () => {
  it('parses whole numbers in decimal digits within bounds only', () => {
    const parse = wholeNumber('--workers', 0, 99);
    expect(parse('0')).toBe(0);
    expect(parse('99')).toBe(99);
    for (const bad of ['100', '-1', '1.5', '1e1', '0x10', ' 5', '', 'abc', '9'.repeat(30)])
      expect(() => parse(bad), bad).toThrow(
        `--workers ${bad}: expected a whole number from 0 to 99`,
      );
  });

  it('leaves room for the control plane and one port per node below 65536', () => {
    expect(portRangeProblem(65_526, 3)).toBeUndefined();
    expect(portRangeProblem(65_527, 3)).toMatch(/so the base must be from 1 to 65526$/);
    expect(portRangeProblem(65_535 - 7 - 108 + 1, 108)).toBeUndefined();
    expect(portRangeProblem(0, 1)).toBeDefined();
    expect(portRangeProblem(1.5, 1)).toBeDefined();
  });

  it('refuses a port base without room, and durations the controller cannot read', () => {
    expect(() => {
      checkStartOptions(options({ portBase: 65_530 }));
    }).toThrow('--port-base 65530: a box of 3 nodes uses 10 ports');
    expect(() => {
      checkStartOptions(options({ portBase: 65_500, workers: 40 }));
    }).toThrow('from 1 to 65488');
    expect(() => {
      checkStartOptions(options({ drainTimeout: '5 minutes' }));
    }).toThrow('--drain-timeout');
    expect(() => {
      checkStartOptions(options({ mcsCertRefresh: '1h', mcsCertValidity: '2h' }));
    }).not.toThrow();
  });
});
