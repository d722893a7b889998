/**
 * The rooms' one-way rules (docs/architecture.md, the rooms and the data flow), checked by `make test`:
 *   analysis/  pure core: never harness/, reports/, demo/, no node builtin, only pure npm packages
 *   reports/   pure renderers: never harness/, demo/, no node builtin
 *   demo/      a stand-in for the user's service: nothing of plateau
 * Tests (*.test.ts) and test helpers (analysis/testing/) may cross rooms: they build fixtures.
 * Type-only imports count too (tsPreCompilationDeps): a pure module that needs the harness's config
 * declares the narrow input type it reads instead.
 */
const TESTS = '(\\.test\\.ts$|^analysis/testing/)';
// The npm packages the pure core may use: computation only, no I/O, no clock.
const PURE_NPM = '^node_modules/(hdr-histogram-js|ml-levenberg-marquardt)/';

module.exports = {
  forbidden: [
    {
      name: 'analysis-not-to-shell-or-renderers',
      comment:
        'analysis/ is the pure core: it never imports harness/, reports/ or demo/. Move the needed ' +
        'pure code into analysis/, or declare the narrow input type the module reads.',
      severity: 'error',
      from: { path: '^analysis/', pathNot: TESTS },
      to: { path: '^(harness|reports|demo)/' },
    },
    {
      name: 'analysis-no-builtins',
      comment: 'analysis/ does no I/O and reads no clock: no node:* module. Take the value as an argument.',
      severity: 'error',
      from: { path: '^analysis/', pathNot: TESTS },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'analysis-only-pure-npm',
      comment:
        'analysis/ may use only pure npm packages (hdr-histogram-js, ml-levenberg-marquardt). ' +
        'A new one must be computation only: add it to PURE_NPM in .dependency-cruiser.cjs.',
      severity: 'error',
      from: { path: '^analysis/', pathNot: TESTS },
      to: { path: '^node_modules/', pathNot: PURE_NPM },
    },
    {
      name: 'reports-not-to-shell-or-demo',
      comment: 'reports/ renders values: it imports analysis/ (types, pure helpers), never harness/ or demo/.',
      severity: 'error',
      from: { path: '^reports/', pathNot: TESTS },
      to: { path: '^(harness|demo)/' },
    },
    {
      name: 'reports-no-builtins',
      comment: 'reports/ is pure: no node:* module. The harness reads and writes files; a renderer returns text.',
      severity: 'error',
      from: { path: '^reports/', pathNot: TESTS },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'demo-not-to-plateau',
      comment:
        "demo/ stands in for the user's service: it imports nothing of harness/, analysis/ or reports/. " +
        'Only its scenario (demo/scenario.ts) uses plateau, through the public API (harness/public.ts), as a user would.',
      severity: 'error',
      from: { path: '^demo/', pathNot: '(\\.test\\.ts$|^demo/scenario\\.ts$)' },
      to: { path: '^(harness|analysis|reports)/' },
    },
    {
      name: 'demo-scenario-public-api-only',
      comment: 'The demo scenario is written as a user writes one: it imports plateau (harness/public.ts) only.',
      severity: 'error',
      from: { path: '^demo/scenario\\.ts$' },
      to: { path: '^(harness|analysis|reports)/', pathNot: '^harness/public\\.ts$' },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that does not resolve: fix the path (the rules above cannot check what they cannot find).',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports are dependencies too: `import type { PlateauConfig }` ties analysis/ to the shell.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
