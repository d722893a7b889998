/**
 * The config's `probes` section: read-only probes of the target's data around the load.
 * `probes.distribution[]` counts what each node holds (a SQL query's rows of node and count, or a
 * Prometheus gauge per node) before the warmup and after the last step, and plateau says SPREAD
 * or SKEWED (analysis/distribution.ts). Ready queries: docs/distribution.md.
 */
import { z } from 'zod';
import { about, nonEmpty, positive, positiveInt } from '../config/field-kinds.ts';
import { connectionProblems, envVarName, sqlDriver } from '../config/reset-schema.ts';
import { hasSecondStatement, verbOf } from '../reset/sql-guard.ts';
import { urlSecrets } from '../secret-scrub.ts';

/** The verbs a probe's query may start with: it reads, never writes. */
export const PROBE_VERBS = ['SELECT', 'WITH', 'SHOW'];

function queryProblem(query: string): string | undefined {
  const verb = verbOf(query);
  if (!PROBE_VERBS.includes(verb))
    return `must be a read-only query starting with ${PROBE_VERBS.join(', ')} (got ${verb || 'nothing'}): a probe never changes the data; put changes in reset.hooks`;
  if (hasSecondStatement(query))
    return 'holds more than one statement (a ";" followed by more SQL): give one query that returns rows of (node, count)';
  return undefined;
}

const distributionProbe = z
  .strictObject({
    name: nonEmpty('names the probe in the report and pairs its before and after readings', 'leaders'),
    source: z
      .enum(['sql', 'metric'])
      .describe('sql: a query returning rows of (node, count); metric: a Prometheus gauge per node')
      .default('sql'),
    driver: sqlDriver.optional(),
    urlEnv: envVarName(
      'sql on postgres or mysql: the environment variable holding the URL',
      'PROBE_DATABASE_URL',
    ).optional(),
    database: nonEmpty('sql on sqlite: the database file', './data/staging.db').optional(),
    query: nonEmpty(
      'sql: one read-only query whose rows are (node, count): the first column names the node, the second is a number',
      "SELECT svr_ip, count(*) FROM oceanbase.DBA_OB_TABLE_LOCATIONS WHERE role = 'LEADER' GROUP BY svr_ip",
    ).optional(),
    url: nonEmpty(
      "metric: the Prometheus text endpoint, absolute or a path on the target's origin",
      '/metrics',
    ).optional(),
    series: nonEmpty('metric: the gauge, summed per node', 'tikv_raftstore_region_count').optional(),
    labels: z
      .record(z.string(), z.string())
      .describe('metric: only the samples with these labels, e.g. { type: "leader" }')
      .optional(),
    nodeLabel: nonEmpty('metric: the label that names the node', 'instance').optional(),
    expectNodes: z
      .union([z.array(z.string().min(1)).min(1), positiveInt('how many nodes must each hold some')])
      .describe(
        'the nodes that must each hold some, by name (as the first column or nodeLabel gives them), or how many',
      )
      .optional(),
    maxSkew: z
      .number()
      .min(1)
      .meta(about('SPREAD needs the largest count at most this many times the mean'))
      .default(1.5),
    when: z
      .array(z.enum(['before', 'after']))
      .min(1)
      .describe('before the warmup, after the last step, or both')
      .default(['before', 'after']),
    require: z
      .literal('spread')
      .describe("'spread': a SKEWED reading before the run stops it before any load")
      .optional(),
    timeoutS: positive('seconds one reading may take, connecting included').default(30),
  })
  .superRefine((p, ctx) => {
    const add = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (p.source === 'sql') {
      if (p.driver === undefined)
        add('driver', "missing: a sql probe names its database: driver: 'postgres', 'mysql' or 'sqlite'");
      else for (const c of connectionProblems({ ...p, driver: p.driver }, 'PROBE_DATABASE_URL')) add(c.path, c.message);
      if (p.query === undefined)
        add('query', 'missing: give the query whose rows are (node, count), e.g. from docs/distribution.md');
      else {
        const why = queryProblem(p.query);
        if (why) add('query', why);
      }
      for (const k of ['url', 'series', 'labels', 'nodeLabel'] as const)
        if (p[k] !== undefined) add(k, `is for source: 'metric'; a sql probe reads its query: remove ${k}`);
    } else {
      if (p.url === undefined) add('url', 'missing: give the Prometheus text endpoint, e.g. url: "/metrics"');
      else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(p.url)) {
        let found: ReturnType<typeof urlSecrets> | null = null;
        try {
          found = urlSecrets(new URL(p.url));
        } catch {
          add('url', 'is not a URL: give an absolute http(s) URL or a path on the target\'s origin, e.g. "/metrics"');
        }
        if (found?.userinfo || found?.params.length)
          add('url', 'carries credentials (not shown): a URL in the config is recorded in run.json; remove them');
      }
      if (p.series === undefined) add('series', 'missing: name the gauge, e.g. series: "tikv_raftstore_region_count"');
      if (p.nodeLabel === undefined)
        add('nodeLabel', 'missing: name the label that tells the nodes apart, e.g. nodeLabel: "instance"');
      for (const k of ['driver', 'urlEnv', 'database', 'query'] as const)
        if (p[k] !== undefined) add(k, `is for source: 'sql'; a metric probe reads series: remove ${k}`);
    }
    if (new Set(p.when).size !== p.when.length) add('when', 'lists a moment twice: give each of before, after once');
    if (p.require === 'spread' && !p.when.includes('before'))
      add('require', "'spread' judges the reading before the run, and when has no 'before': add it, or remove require");
  });

export const probesSection = z
  .strictObject({
    distribution: z
      .array(distributionProbe)
      .describe(
        'read-only counts of what each node holds, before and after the load: SPREAD or SKEWED; the fields and ready queries: docs/distribution.md',
      )
      .superRefine((probes, ctx) => {
        const seen = new Set<string>();
        probes.forEach((p, i) => {
          if (seen.has(p.name))
            ctx.addIssue({
              code: 'custom',
              path: [i, 'name'],
              message: `"${p.name}" names two probes: give each its own name (it pairs a probe's before and after readings)`,
            });
          seen.add(p.name);
        });
      })
      .default([]),
  })
  .describe("read-only probes of the target's data around the load");

export type DistributionProbe = z.output<typeof distributionProbe>;
