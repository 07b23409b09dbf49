/**
 * The daemon's pod log as the dashboard shows it: each pino JSON line in the text form `mco logs`
 * prints (`TIME LEVEL message key=value…`), other lines as they are. A line cut across two chunks
 * is held until its end arrives, so a JSON line is never formatted in halves.
 */
import { formatLogLine } from '../lib/log-text.js';

export function daemonLogText(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  let rest = '';
  const encoder = new TextEncoder();
  const lines = new TransformStream<string, Uint8Array>({
    transform(chunk, out) {
      const text = rest + chunk;
      const cut = text.lastIndexOf('\n');
      if (cut < 0) {
        rest = text;
        return;
      }
      rest = text.slice(cut + 1);
      const formatted = text
        .slice(0, cut)
        .split('\n')
        .map((l) => `${formatLogLine(l)}\n`)
        .join('');
      out.enqueue(encoder.encode(formatted));
    },
    flush(out) {
      if (rest !== '') out.enqueue(encoder.encode(formatLogLine(rest)));
    },
  });
  return body.pipeThrough(new TextDecoderStream()).pipeThrough(lines);
}
