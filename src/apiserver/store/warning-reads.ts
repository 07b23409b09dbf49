/**
 * The store's answer to a kind's write warnings (kind-strategy.ts WarningReads): another kind's
 * objects from the watch cache (resourceVersion 0), so a warned write costs no storage read.
 */
import type { StoreContext } from './context.js';
import type { WarningReads } from './kind-strategy.js';
import { listObjects } from './list.js';

export function warningReads(ctx: StoreContext): WarningReads {
  return {
    async listKind(group, kind) {
      const rt = ctx.registry.byKind(group, kind);
      if (rt === undefined) return undefined;
      return (await listObjects(ctx, rt, undefined, { resourceVersion: '0' })).items;
    },
  };
}
