/**
 * Runs an async function over items with at most `limit` in flight: writes for a thousand nodes
 * need not queue up one behind the other, nor hit the server all at once. It rejects with the
 * first failure, and only once every call it started has settled (no write is left running
 * behind the caller's back). By default nothing new starts after a failure; with
 * `stopOnError: false` every item is still visited (the node controller's pass targets every
 * chosen node even when one write fails).
 */
export interface ForEachLimitOptions {
  readonly stopOnError?: boolean;
}

export async function forEachLimit<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
  options: ForEachLimitOptions = {},
): Promise<void> {
  const stopOnError = options.stopOnError ?? true;
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while ((failure === undefined || !stopOnError) && next < items.length) {
      const item = items[next++] as T;
      try {
        await fn(item);
      } catch (e) {
        failure ??= { error: e };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure !== undefined) throw failure.error;
}
