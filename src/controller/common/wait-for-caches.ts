/**
 * Registers informers with a Controller without giving them keys of their own: the controller
 * waits for these caches to sync before its workers start, and the caller's own handlers decide
 * what to enqueue (upstream's sub-controllers enqueue with delays the runtime's `watch` lacks).
 */
import type { ApiObject } from '../../ports/resource-client.js';
import type { Controller } from '../../runtime/controller.js';
import type { Informer } from '../../runtime/informer.js';

export function waitForCache<T extends ApiObject>(
  controller: Controller,
  informer: Informer<T>,
): void {
  controller.watch(informer, { map: () => [] });
}
