import type { Part } from './shell-lexer.js';

/**
 * A word's parts as the lexer reads them: literal text gathers until something else comes
 * (an expansion, a quoted piece), then it becomes one literal part.
 */
export class PartsBuilder {
  readonly parts: Part[] = [];
  /** The literal text read since the last part. */
  pending = '';

  /** `quoted`: whether the gathered literal text was inside quotes. */
  constructor(private readonly quoted: boolean) {}

  add(text: string): void {
    this.pending += text;
  }

  /** Ends the pending literal, then appends `parts`. */
  push(...parts: Part[]): void {
    this.flush();
    this.parts.push(...parts);
  }

  /** Ends the pending literal and gives every part. */
  done(): Part[] {
    this.flush();
    return this.parts;
  }

  private flush(): void {
    if (this.pending) this.parts.push({ kind: 'lit', text: this.pending, quoted: this.quoted });
    this.pending = '';
  }
}
