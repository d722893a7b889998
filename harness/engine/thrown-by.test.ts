import { describe, expect, it } from 'vitest';
import { faultError, SCENARIO_SOURCE, scenarioBundleLoaded, stackLocations, thrownByScenario } from './thrown-by.ts';
import { PlateauError } from '../errors.ts';
import { thrownAt } from '../../test/helpers/uncaught.ts';

const OWN = ['/opt/plateau/harness', '/opt/plateau/node_modules/.cache/plateau'];

describe('stackLocations', () => {
  it("reads each frame's file, with or without a function name, without its line and column", () => {
    expect(
      stackLocations(
        [
          'TypeError: x is not a function',
          `    at Timeout._onTimeout (${SCENARIO_SOURCE}/srv/my shop.ts:18:17)`,
          '    at listOnTimeout (node:internal/timers:581:17)',
          '    at file:///opt/plateau/harness/engine/native.ts:12:5',
          '    at new Promise (<anonymous>)',
        ].join('\n'),
      ),
    ).toEqual([
      `${SCENARIO_SOURCE}/srv/my shop.ts`,
      'node:internal/timers',
      'file:///opt/plateau/harness/engine/native.ts',
      '<anonymous>',
    ]);
  });
});

describe('thrownByScenario', () => {
  it("is the scenario's where its bundle is on the stack and no file of plateau's own is", () => {
    expect(
      thrownByScenario(
        thrownAt(
          'boom',
          `Timeout._onTimeout (${SCENARIO_SOURCE}/srv/shop.ts:18:17)`,
          'listOnTimeout (node:internal/timers:581:17)',
        ),
        OWN,
      ),
    ).toBe(true);
    // a package the scenario imports (its own node_modules) called back into it
    expect(
      thrownByScenario(
        thrownAt(
          'boom',
          `onMessage (${SCENARIO_SOURCE}/srv/shop.ts:9:3)`,
          'Socket.emit (file:///srv/node_modules/ws/lib/x.js:3:1)',
        ),
        OWN,
      ),
    ).toBe(true);
  });

  it("is the scenario's where plateau's code it called threw to it (ctx.row(...) misused in a timer)", () => {
    const stack = thrownAt(
      'boom',
      'rowOf (/opt/plateau/harness/scenario/context.ts:142:19)',
      `Timeout._onTimeout (${SCENARIO_SOURCE}/srv/shop.ts:17:79)`,
      'listOnTimeout (node:internal/timers:581:17)',
    );
    expect(thrownByScenario(stack, OWN)).toBe(true);
  });

  it("is not where plateau's code lies beneath the scenario's (a file URL, a path, its cached bundle), where no frame is the scenario's, or where the stack may be cut", () => {
    const scenario = `run (${SCENARIO_SOURCE}/srv/shop.ts:18:17)`;
    const beneath = [
      'fire (file:///opt/plateau/harness/engine/native.ts:120:7)',
      'fire (/opt/plateau/harness/engine/native.ts:120:7)',
      'x (file:///opt/plateau/node_modules/.cache/plateau/main.mjs:9:1)',
    ];
    for (const own of beneath) expect(thrownByScenario(thrownAt('boom', scenario, own), OWN), own).toBe(false);
    const undici = 'Parser.execute (file:///opt/plateau/node_modules/undici/lib/x.js:1:1)';
    expect(thrownByScenario(thrownAt('boom', undici), OWN)).toBe(false);
    const deep = Array.from(
      { length: Error.stackTraceLimit - 1 },
      (_, i) => `f${i} (${SCENARIO_SOURCE}/srv/shop.ts:${i + 1}:1)`,
    );
    expect(thrownByScenario(thrownAt('boom', ...deep), OWN)).toBe(true);
    expect(thrownByScenario(thrownAt('boom', ...deep, 'listOnTimeout (node:internal/timers:581:17)'), OWN)).toBe(false);
    // a directory that only starts like plateau's is not it
    expect(thrownByScenario(thrownAt('boom', scenario, 'x (/opt/plateau/harness-extra/y.ts:1:1)'), OWN)).toBe(true);
  });

  it('knows a bundle by its data: URL where the stack is formatted without its sourceURL', () => {
    const url = 'data:text/javascript;base64,ZXhwb3J0IGRlZmF1bHQgMTs=';
    const at = thrownAt('boom', `Timeout._onTimeout (${url}:20:19)`, 'listOnTimeout (node:internal/timers:581:17)');
    expect(thrownByScenario(at, OWN)).toBe(false);
    scenarioBundleLoaded(url);
    expect(thrownByScenario(at, OWN)).toBe(true);
  });

  it("is the scenario's for a thrown value that is not an Error: plateau's code throws only Errors", () => {
    expect(thrownByScenario('a string', OWN)).toBe(true);
    expect(thrownByScenario({ code: 7 }, OWN)).toBe(true);
  });

  it("knows plateau's own files from this checkout by default", () => {
    const native = `fire (${new URL('./native.ts', import.meta.url).href}:1:1)`;
    const scenario = `run (${SCENARIO_SOURCE}/srv/shop.ts:1:1)`;
    expect(thrownByScenario(thrownAt('boom', scenario, native))).toBe(false);
    expect(thrownByScenario(thrownAt('boom', native, scenario))).toBe(true);
  });
});

describe('faultError', () => {
  it("leaves plateau's own, Node's alone and a value that is not an Error as they are: the pipeline says them as internal errors", () => {
    const ours = thrownAt(
      'boom',
      'fire (/opt/plateau/harness/engine/native.ts:120:7)',
      'listOnTimeout (node:internal/timers:581:17)',
    );
    const node = thrownAt(
      'boom',
      'emitErrorNT (node:internal/streams/destroy:151:8)',
      'process.processTicksAndRejections (node:internal/process/task_queues:82:21)',
    );
    expect(faultError(ours, OWN)).toBe(ours);
    expect(faultError(node, OWN)).toBe(node);
    expect(faultError(7, OWN)).toBe(7);
  });

  it("says one thrown by code of neither (a package's client with no 'error' listener) as that, where, with the fix and the stack", () => {
    const pkg = thrownAt(
      'boom',
      'Client.emit (file:///srv/node_modules/pg/lib/client.js:88:9)',
      'Socket.<anonymous> (node:net:1:1)',
    );
    const e = faultError(pkg, OWN) as PlateauError;
    expect(e).toBeInstanceOf(PlateauError);
    expect([e.code, e.exitCode, e.stack]).toEqual(['uncaught-exception', 4, pkg.stack]);
    expect(e.message).toBe(
      "an exception nobody caught stopped the run, thrown by code that is not plateau's (file:///srv/node_modules/pg/lib/client.js): boom",
    );
    expect(e.hint).toMatch(
      /^handle the error where it is thrown \(an 'error' listener on the client the scenario uses/,
    );
  });
});
