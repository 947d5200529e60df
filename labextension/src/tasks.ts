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
  private readonly jobs: Array<{ readonly run: () => Promise<void>; readonly alone: boolean }> = [];
  private draining = false;

  constructor(private readonly budgetMs = 10) {}

  /**
   * Run `job` in a coming slice; resolves (or rejects) with it. An `alone` job (one known to take
   * longer than a slice) starts a slice of its own, so that its time is not added to others'.
   */
  run<T>(job: () => Promise<T>, alone = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.jobs.push({ run: () => job().then(resolve, reject), alone });
      if (!this.draining) {
        this.draining = true;
        nextTask(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    const start = performance.now();
    let ran = 0;
    while (this.jobs.length > 0 && performance.now() - start < this.budgetMs) {
      if (ran > 0 && this.jobs[this.jobs.length - 1].alone) {
        break;
      }
      const job = this.jobs.pop() as { run: () => Promise<void> };
      await job.run().catch(() => undefined);
      ran++;
    }
    if (this.jobs.length > 0) {
      nextTask(() => void this.drain());
    } else {
      this.draining = false;
    }
  }
}
