import { describe, expect, it } from 'vitest';
import { encodeFrame } from '../../../src/execute-code/kernel/frames.js';
import { KernelWiring, StartFailure } from '../../../src/execute-code/kernel/index.js';

const never = new Promise<string>(() => {});

describe('KernelWiring (the kernel hello wait, on every frame transport)', () => {
  it('takes a hello that came before ready() was called (a stream hands over the runner hello and the kernel hello in one chunk)', async () => {
    const wiring = new KernelWiring();
    wiring.listeners.onControl(encodeFrame('H', Buffer.from('1', 'latin1')));
    await expect(wiring.ready(200, never)).resolves.toBeUndefined();
  });

  it('takes a hello that comes after ready() was called, and routes later frames to the kernel', async () => {
    const wiring = new KernelWiring();
    const ready = wiring.ready(1000, never);
    wiring.listeners.onControl(encodeFrame('H', Buffer.from('1', 'latin1')));
    await ready;
    const kinds: string[] = [];
    wiring.attach({ onStdout: () => {}, onStderr: () => {}, onFrame: (frame) => kinds.push(frame.kind), onProtocolError: () => {} });
    wiring.listeners.onControl(encodeFrame('O'));
    expect(kinds).toEqual(['O']);
  });

  it('refuses a wrong first frame, before or after ready() was called, with the stderr so far', async () => {
    const early = new KernelWiring();
    early.listeners.onStderr(Buffer.from('ImportError: no hermes_tools\n'));
    early.listeners.onControl(encodeFrame('O'));
    const error = await early.ready(1000, never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StartFailure);
    expect(error).toMatchObject({ message: expect.stringContaining('unexpected "O" frame at start'), stderr: 'ImportError: no hermes_tools' });
    const late = new KernelWiring();
    const waiting = late.ready(1000, never);
    late.listeners.onControl(encodeFrame('H', Buffer.from('2', 'latin1')));
    await expect(waiting).rejects.toThrow(/unexpected "H" frame at start/);
  });

  it('says why when the kernel ends first, or when no hello comes in time', async () => {
    await expect(new KernelWiring().ready(1000, Promise.resolve('it exited with code 4'))).rejects.toThrow('it exited with code 4');
    await expect(new KernelWiring().ready(50, never)).rejects.toThrow('it did not report ready within 50 ms');
  });
});
