// The processes a bench starts (the service, the peer's HTTP front, the floor's servers, replicas, CLI
// commands) stop with it. A bench stopped by a signal (Ctrl-C, `timeout`, pkill) or ended by an error
// left its server running: the server kept its data folder (the next bench's server refused it with
// StoreBusyError) and its gigabytes, and a bench run beside it measured a busier machine.

import type { ChildProcess } from 'node:child_process';
import { constants } from 'node:os';

const running = new Set<ChildProcess>();

function stopAll(): void {
  for (const child of running) child.kill('SIGTERM');
}

let hooked = false;

function hook(): void {
  if (hooked) return;
  hooked = true;
  process.once('exit', stopAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
    process.once(signal, () => {
      stopAll();
      process.exit(128 + constants.signals[signal]);
    });
}

/** `child`, sent SIGTERM when this process exits or is stopped by a signal while the child still runs. */
export function stoppedWithBench<T extends ChildProcess>(child: T): T {
  hook();
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}
