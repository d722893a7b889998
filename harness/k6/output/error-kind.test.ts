/**
 * k6's tags to plateau's verdict on one request: k6's expected_response decides, except that a
 * 5xx, a 429 or no answer never succeeds (a request the service did not serve; decision 078).
 */
import { describe, expect, it } from 'vitest';
import { isOk } from './error-kind.ts';

describe("a k6 request's outcome", () => {
  it.each([
    ['200, expected', { status: '200', expected_response: 'true' }, true],
    ['404 a responseCallback marked expected', { status: '404', expected_response: 'true', error_code: '1404' }, true],
    ['200 a responseCallback marked unexpected', { status: '200', expected_response: 'false' }, false],
    ['503 marked expected', { status: '503', expected_response: 'true', error_code: '1503' }, false],
    ['500 marked expected', { status: '500', expected_response: 'true' }, false],
    ['429 marked expected', { status: '429', expected_response: 'true', error_code: '1429' }, false],
    ['204 without the tag (callback off)', { status: '204' }, true],
    ['503 without the tag', { status: '503', error_code: '1503' }, false],
    [
      'no answer (status 0, refused) marked expected',
      { status: '0', expected_response: 'true', error_code: '1212' },
      false,
    ],
    ['no status tag (--system-tags without it), expected', { expected_response: 'true' }, true],
    ['an empty status tag, expected', { status: '', expected_response: 'true' }, true],
  ])('%s', (_, tags, ok) => {
    expect(isOk(tags)).toBe(ok);
  });
});
