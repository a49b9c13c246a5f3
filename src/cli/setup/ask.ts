import { Writable } from 'node:stream';
import type { Interface } from 'node:readline';

/** Where setup asks and says things: the terminal, or streams in tests. */
export interface SetupIo {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

/**
 * Questions on one readline interface. Lines are queued as they come, so answers typed (or
 * written by a test) ahead of their question are kept. A secret's typing is not echoed:
 * readline writes through a stream that drops what it is given while a secret is asked.
 */
export class Asker {
  private muted = false;
  private readonly rl: Interface;
  private readonly lines: string[] = [];
  private waiting: { resolve: (line: string) => void; reject: (error: Error) => void } | undefined;
  private ended = false;

  private constructor(
    private readonly io: SetupIo,
    createInterface: typeof import('node:readline').createInterface,
  ) {
    const output = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        if (!this.muted) io.output.write(chunk);
        done();
      },
    });
    this.rl = createInterface({ input: io.input, output, terminal: (io.input as { isTTY?: boolean }).isTTY === true });
    this.rl.on('line', (line) => {
      const waiting = this.waiting;
      this.waiting = undefined;
      if (waiting) waiting.resolve(line);
      else this.lines.push(line);
    });
    this.rl.on('close', () => {
      this.ended = true;
      this.waiting?.reject(new Error('setup: the input ended before every question was answered; nothing more was written'));
      this.waiting = undefined;
    });
  }

  static async open(io: SetupIo): Promise<Asker> {
    const { createInterface } = await import('node:readline');
    return new Asker(io, createInterface);
  }

  /** Shows `prompt` and resolves with the next line typed. */
  private question(prompt: string): Promise<string> {
    this.rl.setPrompt(prompt);
    this.rl.prompt();
    const queued = this.lines.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.ended) return Promise.reject(new Error('setup: the input ended before every question was answered; nothing more was written'));
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  say(line = ''): void {
    this.io.output.write(`${line}\n`);
  }

  /** An answer, trimmed; Enter gives `fallback` (shown in brackets) when there is one. */
  async text(question: string, fallback = ''): Promise<string> {
    const answer = (await this.question(`${question}${fallback ? ` [${fallback}]` : ''}: `)).trim();
    return answer === '' ? fallback : answer;
  }

  /** A secret (a key, a token): not shown as it is typed. Enter keeps the one already set when `keep` says so. */
  async secret(question: string, keep = false): Promise<string> {
    this.io.output.write(`${question}${keep ? ' (Enter keeps the one set)' : ''}: `);
    this.muted = true;
    try {
      return (await this.question('')).trim();
    } finally {
      this.muted = false;
      this.io.output.write('\n');
    }
  }

  async yes(question: string, fallback: boolean): Promise<boolean> {
    for (;;) {
      const answer = (await this.question(`${question} [${fallback ? 'Y/n' : 'y/N'}]: `)).trim().toLowerCase();
      if (answer === '') return fallback;
      if (['y', 'yes'].includes(answer)) return true;
      if (['n', 'no'].includes(answer)) return false;
      this.say('Type y or n.');
    }
  }

  /** One of `choices` by number or by its value; Enter gives `fallback`. */
  async choose(question: string, choices: readonly string[], fallback?: string): Promise<string> {
    for (;;) {
      const answer = await this.text(question, fallback);
      const byNumber = /^\d+$/.test(answer) ? choices[Number(answer) - 1] : undefined;
      const chosen = byNumber ?? choices.find((choice) => choice.toLowerCase() === answer.toLowerCase());
      if (chosen) return chosen;
      this.say(`"${answer}" is not one of them; type a number from 1 to ${choices.length} or a name.`);
    }
  }

  close(): void {
    this.rl.close();
  }
}
