/**
 * vitest's globalSetup: every temporary directory of a test run lands under one root, removed when
 * the run ends. Test files and helpers make theirs with mkdtemp(os.tmpdir()), and so do the code
 * and servers they start (nginx, Prometheus, the databases, the demo, child CLIs): pointing TMPDIR
 * at the root before the workers start catches them all, where a run used to leave some 50
 * directories in /tmp (fake kubectls, rendered reports, gate files) that no test removed.
 *
 * A run killed before its teardown leaves its root behind, named plateau-test-*.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export default function setup(): () => void {
  // vitest runs a globalSetup once per project: the first makes the root, the others keep it
  if (process.env.PLATEAU_TEST_TMP !== undefined) return () => undefined;
  const before = process.env.TMPDIR;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-test-'));
  // a TMPDIR as /tmp is: the databases run as their own user, in a folder a helper hands them, and
  // MariaDB writes its temporary files to TMPDIR (sticky: none removes another's; mkdtemp's own 0700)
  fs.chmodSync(root, 0o1777);
  process.env.TMPDIR = root;
  process.env.PLATEAU_TEST_TMP = root;
  return () => {
    delete process.env.PLATEAU_TEST_TMP;
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    fs.rmSync(root, { recursive: true, force: true });
  };
}
