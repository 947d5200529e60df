/**
 * Scheduling on the main thread. `nextTask` runs a function in a new task as soon as possible;
 * `WorkQueue` renders in time slices: jobs (one markdown block each) run one after the other, newest first,
 * for at most `budgetMs` of the main thread, then the queue yields a task so the browser can paint and
 * read the network, and goes on. A long session or a resync that brings 100 KB of new text at once thus
 * never turns into one long task; the newest content (what the user looks at) is rendered first.
 */

const pending: Array<() => void> = [];
let channel: MessageChannel | null = null;

/** Run `run` in a new task as soon as possible (a MessageChannel round trip, unlike `setTimeout`'s clamping). */
export function nextTask(run: () => void): void {
  if (!channel) {
    channel = new MessageChannel();
    channel.port1.onmessage = () => pending.shift()?.();
  }
  pending.push(run);
  channel.port2.postMessage(null);
}

export class WorkQueue {
  private readonly jobs: Array<() => Promise<void>> = [];
  private draining = false;

  constructor(private readonly budgetMs = 10) {}

  /** Run `job` in a coming slice; resolves (or rejects) with it. */
  run<T>(job: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.jobs.push(() => job().then(resolve, reject));
      if (!this.draining) {
        this.draining = true;
        nextTask(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    const start = performance.now();
    while (this.jobs.length > 0 && performance.now() - start < this.budgetMs) {
      const job = this.jobs.pop() as () => Promise<void>;
      await job().catch(() => undefined);
    }
    if (this.jobs.length > 0) {
      nextTask(() => void this.drain());
    } else {
      this.draining = false;
    }
  }
}
