/** What the scripted model fakes (OpenAI, Anthropic) share: a script of replies and a log of requests. */
export interface ScriptedFake<Request, Reply> {
  /** The base URL to give the client. */
  url: string;
  requests: Request[];
  /** Adds replies to the end of the script. */
  enqueue(...replies: Reply[]): void;
  /** Resolves when at least `count` model requests have arrived, with the count-th. */
  waitForRequests(count: number): Promise<Request>;
  close(): Promise<void>;
}

/** The requests a fake has recorded, and the tests waiting for the count-th of them. */
export class RequestLog<Request> {
  readonly requests: Request[] = [];
  private readonly waiters: Array<{ count: number; resolve: () => void }> = [];

  record(request: Request): void {
    this.requests.push(request);
    for (const waiter of this.waiters.filter((w) => this.requests.length >= w.count)) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }

  waitFor(count: number): Promise<Request> {
    if (this.requests.length >= count) return Promise.resolve(this.requests[count - 1]);
    return new Promise((resolve) => this.waiters.push({ count, resolve: () => resolve(this.requests[count - 1]) }));
  }
}
