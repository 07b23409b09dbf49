import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { OpenStreams } from './open-streams.js';

/** What endOf needs of a Node response: its 'close' event and `destroyed`. */
class FakeResponse extends EventEmitter {
  destroyed = false;

  close(): void {
    this.destroyed = true;
    this.emit('close');
  }
}

describe('OpenStreams.endOf', () => {
  it('aborts when the connection closes, and stops listening to it', () => {
    const streams = new OpenStreams();
    const response = new FakeResponse();
    const signal = streams.endOf(response);
    expect(signal.aborted).toBe(false);
    response.close();
    expect(signal.aborted).toBe(true);
    expect(response.listenerCount('close')).toBe(0);
  });

  it('aborts every open connection’s signal on shutdown, and at once for one asked after', async () => {
    const streams = new OpenStreams();
    const responses = [new FakeResponse(), new FakeResponse()];
    const signals = responses.map((r) => streams.endOf(r));
    await streams.closeAll(100);
    expect(signals.map((s) => s.aborted)).toEqual([true, true]);
    expect(responses.map((r) => r.listenerCount('close'))).toEqual([0, 0]);
    expect(streams.endOf(new FakeResponse()).aborted).toBe(true);
  });

  it('is aborted at once for a connection already gone', () => {
    const streams = new OpenStreams();
    const gone = new FakeResponse();
    gone.close();
    expect(streams.endOf(gone).aborted).toBe(true);
    expect(gone.listenerCount('close')).toBe(0);
  });
});
