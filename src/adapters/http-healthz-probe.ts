/**
 * A healthz probe over HTTP, as the daemon asks the kubelet (`http://localhost:10248/healthz`):
 * a transport error, a timeout (30 s upstream) or a status of 400 or more is a failure. Upstream
 * counts only transport errors and logs a body other than `ok`; a kubelet answering 500
 * `healthz check failed` is unhealthy, so it counts here too.
 */
const KubeletHealthzTimeoutMs = 30_000;

export function httpHealthzProbe(
  url: string,
  timeoutMs = KubeletHealthzTimeoutMs,
): (signal: AbortSignal) => Promise<void> {
  return async (signal) => {
    const response = await fetch(url, {
      signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
    });
    const body = (await response.text()).trim();
    if (response.status >= 400)
      throw new Error(`${url}: ${response.status} ${body.slice(0, 200)}`.trimEnd());
  };
}
