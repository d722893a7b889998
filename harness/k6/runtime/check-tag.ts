/**
 * The `check` tag of plateau_check_failed, kept apart from send.ts so that it imports nothing of
 * k6 (tests read its constants).
 */
import { cutMessage } from '../../cut-message.ts';

/**
 * Distinct check messages a VU tags plateau_check_failed with. k6 keeps a time series per distinct
 * tag set for the whole test, so a message built from data (`expected ${id}`) tagged every time
 * would grow k6's memory with the requests; past these, a rejection is tagged with OTHER_MESSAGES
 * (still counted, by name and kind). The report's samples keep the first messages anyway.
 */
export const CHECK_MESSAGES_TAGGED = 20;
export const OTHER_MESSAGES = `(a message beyond this VU's first ${CHECK_MESSAGES_TAGGED} distinct ones)`;
const tagged = new Set<string>();

/**
 * The `check` tag of a rejection: its message (its first 100 characters) while this VU has tagged
 * few distinct ones. `note` (a body cut at maxBodyBytes: response.ts cutNotes), plateau's own
 * words of bounded length, follows it whole.
 */
export function messageTag(verdict: string, note = ''): string {
  const message = cutMessage(verdict, 100) + note;
  if (tagged.has(message)) return message;
  if (tagged.size >= CHECK_MESSAGES_TAGGED) return OTHER_MESSAGES;
  tagged.add(message);
  return message;
}
