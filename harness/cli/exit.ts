/**
 * Ends the process with `code` once stdout and stderr have handed over what they hold. A pipe
 * takes the CLI's output 64 KiB at a time when its reader is slower than the write: process.exit
 * right after the write cut `plateau compare --json | slow-reader` at 65,536 bytes, exit 0.
 * (The exit stays explicit: a run may leave keep-alive sockets or timers that would hold the
 * process open.)
 */
export function exitWhenFlushed(
  code: number,
  streams: NodeJS.WritableStream[] = [process.stdout, process.stderr],
): void {
  process.exitCode = code;
  let left = streams.length;
  const done = () => {
    if (--left === 0) process.exit(code);
  };
  // an empty write's callback runs once every write queued before it has been handed over (or failed)
  for (const s of streams) s.write('', done);
}
