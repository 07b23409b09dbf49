/**
 * Runs `fn` over `items` with at most `limit` calls in flight, resolving when all have settled
 * and rejecting with the first failure (after the others have settled, so no write is left
 * running behind the caller's back). The node controller writes to many nodes per pass; doing
 * them a few at a time keeps a 1,000-node pool moving without flooding the API server.
 */
export async function mapLimit<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const failures: unknown[] = [];
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      try {
        await fn(item);
      } catch (e) {
        failures.push(e);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failures.length > 0) throw failures[0];
}
