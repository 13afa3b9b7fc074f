/**
 * Makes a forked child process end when its parent does. A crashed or killed server (kill -9, out of memory)
 * runs no shutdown code, so its AI workers (0.4–0.5 GB each) would stay behind as orphans, one more set per
 * restart. Two signals, either of which is enough: the IPC channel closing ('disconnect'), and the parent
 * process id changing (the child was re-parented), checked every `pollMs` in case the channel closed before
 * the listener was in place (the worker's heavy imports run first).
 */
export function exitWithParent(pollMs = 2000): void {
  const parent = process.ppid;
  const leave = () => process.exit(0);
  process.on('disconnect', leave);
  if (process.connected === false) leave();
  const timer = setInterval(() => {
    if (process.ppid !== parent) leave();
  }, pollMs);
  timer.unref();
}
