/**
 * The Ignition specs this system reads and writes, one row each (spec-family.ts): adding a spec
 * is a layout delta file, a row here and the down step from it.
 */
import { maskSpecialModeBits } from '../special-mode-bits.js';
import {
  down32to22,
  down32to31,
  down33to32,
  down34to33,
  down35to34,
} from '../translate-down-steps.js';
import { specFamily, type SpecFamily, type SpecRow } from './spec-family.js';
import { LayoutV2_2 } from './v2-2.js';
import { LayoutV3_0 } from './v3-0.js';
import { LayoutV3_1 } from './v3-1.js';
import { LayoutV3_2 } from './v3-2.js';
import { LayoutV3_3 } from './v3-3.js';
import { LayoutV3_4 } from './v3-4.js';
import { LayoutV3_5 } from './v3-5.js';

/** Oldest first; the last is the internal representation. 3.0 has no way down to it (as upstream). */
export const SpecRows = [
  { version: '2.2.0', minor: 2, layout: LayoutV2_2 },
  { version: '3.0.0', minor: 0, layout: LayoutV3_0 },
  { version: '3.1.0', minor: 1, layout: LayoutV3_1 },
  {
    version: '3.2.0',
    minor: 2,
    layout: LayoutV3_2,
    down: { '3.1.0': down32to31, '2.2.0': down32to22 },
  },
  { version: '3.3.0', minor: 3, layout: LayoutV3_3, down: { '3.2.0': down33to32 } },
  {
    version: '3.4.0',
    minor: 4,
    layout: LayoutV3_4,
    down: { '3.3.0': down34to33 },
    up: maskSpecialModeBits,
  },
  { version: '3.5.0', minor: 5, layout: LayoutV3_5, down: { '3.4.0': down35to34 } },
] as const satisfies readonly SpecRow[];

export type SpecVersion = (typeof SpecRows)[number]['version'];

export const IgnitionSpecs: SpecFamily = specFamily(SpecRows);
