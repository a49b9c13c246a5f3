/**
 * The keys of one endpoint (`model.api_key_env` as a list): requests use the first key that
 * is not resting; a key that gets 429 rests until its reset while the others carry on.
 */
export class KeyPool {
  private readonly restingUntil = new Map<string, number>();

  constructor(
    /** Variable names, in the order config.yaml gives them. */
    readonly names: readonly string[],
    private readonly env: NodeJS.ProcessEnv,
    private readonly now: () => number,
  ) {}

  get size(): number {
    return this.names.length;
  }

  /** The variable to use now: the first one not resting, else the one whose rest ends first. */
  pick(): string | undefined {
    if (this.names.length === 0) return undefined;
    const now = this.now();
    const free = this.names.find((name) => (this.restingUntil.get(name) ?? 0) <= now);
    if (free) return free;
    return [...this.names].sort((a, b) => (this.restingUntil.get(a) ?? 0) - (this.restingUntil.get(b) ?? 0))[0];
  }

  /** Whether a key other than `name` may be used now. */
  hasFreeOtherThan(name: string): boolean {
    const now = this.now();
    return this.names.some((other) => other !== name && (this.restingUntil.get(other) ?? 0) <= now);
  }

  rest(name: string, until: number): void {
    this.restingUntil.set(name, until);
  }

  /** The key's value (empty when its variable is not set). */
  value(name: string | undefined): string | undefined {
    return name ? this.env[name] : undefined;
  }
}
