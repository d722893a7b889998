/**
 * Is the target on the generator's own machine? One answer for the threads stage (which gives a
 * colocated target the cores the generator does not need) and for the report (which says the two
 * shared the machine). Pure: the target's URL and the machine's interface addresses in, no DNS.
 */

/** Names that always reach this machine; 0.0.0.0 and :: do too (a connect to them lands here). */
const LOCAL_NAMES = new Set(['localhost', 'localhost.', '::1', '0.0.0.0', '::']);

/** The environment key run.json records the machine's interface addresses under (space-separated). */
export const MACHINE_ADDRESSES_KEY = 'machineAddresses';

/**
 * True when the URL's host is a loopback name or address (localhost, *.localhost, 127.0.0.0/8,
 * ::1, ::ffff:127.x), 0.0.0.0 or ::, or one of `machineAddresses` (the machine's own interface
 * addresses, e.g. its LAN address). A URL that does not parse is not on this machine.
 */
export function onThisMachine(url: string, machineAddresses: readonly string[] = []): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return false;
  }
  // URL writes ::ffff:127.0.0.1 as ::ffff:7f00:1
  if (
    LOCAL_NAMES.has(host) ||
    /\.localhost\.?$/.test(host) ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) ||
    /^::ffff:7f[0-9a-f]{2}:/.test(host)
  )
    return true;
  return machineAddresses.some((a) => a.toLowerCase() === host);
}

/** The addresses a run recorded (environment.machineAddresses), or none for a run older than the record. */
export function recordedAddresses(environment: Readonly<Record<string, string>>): string[] {
  return (environment[MACHINE_ADDRESSES_KEY] ?? '').split(' ').filter((a) => a.length > 0);
}
