/** The McsMetrics (src/ports/mcs-metrics.ts) a server records nothing with. */
import type { McsMetrics } from '../ports/mcs-metrics.js';

export const noMetrics: McsMetrics = { observeConfigRequest: () => undefined };
