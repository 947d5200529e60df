/**
 * The user's shell commands (`!cmd` in the terminal app) of the open session, as they run: `shell`
 * frames folded into a list, pure like `model.ts`. A command's output grows from its `output` chunks
 * (only the end is kept, `LIVE_CHARS`); its `end` frame gives the output the transcript keeps and how it
 * ended. These are not messages of the view state: the transcript shows a finished command as a user
 * message once the session is loaded again (a `!!cmd` not at all), so the panel keeps the finished
 * commands it watched until then.
 */
import type { ChatFrame, RunningShell, ShellFrame } from './protocol';

/** How much of a running command's output is kept (its end): what the transcript keeps at the most. */
export const LIVE_CHARS = 50_000;

export interface IShellEnd {
  readonly exitCode: number | null;
  readonly cancelled: boolean;
  readonly truncated: boolean;
  readonly fullOutputPath: string | null;
  /** Why it did not run (or was stopped without an end of its own). */
  readonly error: string | null;
}

export interface IShellRun {
  readonly executionId: string;
  readonly command: string;
  readonly includeInContext: boolean;
  readonly output: string;
  /** Output was left out before `output` (a flood, or the end of a long one). */
  readonly cut: boolean;
  /** Null while it runs. */
  readonly end: IShellEnd | null;
}

export function applyShellFrames(runs: readonly IShellRun[], frames: readonly ChatFrame[]): readonly IShellRun[] {
  let next = runs;
  for (const frame of frames) {
    if (frame.type === 'shell') {
      next = applyShellFrame(next, frame);
    }
  }
  return next;
}

export function applyShellFrame(runs: readonly IShellRun[], frame: ShellFrame): readonly IShellRun[] {
  const index = runs.findIndex(r => r.executionId === frame.executionId);
  const run = index >= 0 ? runs[index] : null;
  if (frame.phase === 'output' && (!run || run.end)) {
    return runs; // a command that started before this stream (its end will say all), or one that ended
  }
  const updated = update(run, frame);
  return index >= 0 ? runs.map((r, i) => (i === index ? updated : r)) : [...runs, updated];
}

/**
 * The commands to show when a session is loaded: those the server says run as of its snapshot, with
 * their output so far (`runningShells`: the frames after its cursor go on from there); from a server
 * that does not say (before schema revision 8), those of `watched` still running.
 */
export function runsOnLoad(watched: readonly IShellRun[], running: readonly RunningShell[] | undefined): readonly IShellRun[] {
  if (running === undefined) {
    return stillRunning(watched);
  }
  return running.map(r => ({
    executionId: r.executionId,
    command: r.command,
    includeInContext: r.includeInContext ?? true,
    output: (r.output ?? '').slice(-LIVE_CHARS),
    cut: (r.skipped ?? 0) > 0,
    end: null
  }));
}

/** The commands still running (a reload of the session keeps those; the finished ones are in its transcript). */
export function stillRunning(runs: readonly IShellRun[]): readonly IShellRun[] {
  return runs.some(r => r.end) ? runs.filter(r => !r.end) : runs;
}

function update(run: IShellRun | null, frame: ShellFrame): IShellRun {
  const base: IShellRun = run ?? {
    executionId: frame.executionId,
    command: frame.command ?? '',
    includeInContext: frame.includeInContext ?? true,
    output: '',
    cut: false,
    end: null
  };
  if (frame.phase === 'output') {
    const output = base.output + (frame.chunk ?? '');
    const cut = base.cut || (frame.skipped ?? 0) > 0 || output.length > LIVE_CHARS;
    return { ...base, output: output.slice(-LIVE_CHARS), cut };
  }
  if (frame.phase === 'start') {
    return { ...base, command: frame.command ?? base.command, includeInContext: frame.includeInContext ?? true };
  }
  const end: IShellEnd = {
    exitCode: frame.exitCode ?? null,
    cancelled: frame.cancelled ?? false,
    truncated: frame.truncated ?? false,
    fullOutputPath: frame.fullOutputPath ?? null,
    error: frame.error ?? null
  };
  return { ...base, command: frame.command ?? base.command, output: frame.output ?? base.output, cut: false, end };
}
