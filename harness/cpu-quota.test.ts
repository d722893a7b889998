import { describe, expect, it } from 'vitest';
import { cgroupCpuQuota, throttledMsReader, usableCpus, type ReadText } from './cpu-quota.ts';
import { goMaxProcs, k6ProcessEnv } from './k6/engine/process.ts';

/** A /proc and /sys made of a file map. */
const files =
  (map: Record<string, string>): ReadText =>
  (f) =>
    map[f] ?? null;

const V2_MOUNT =
  '29 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n';
const V1_MOUNTS = [
  '31 23 0:28 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755',
  '32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime shared:10 - cgroup cgroup rw,cpu,cpuacct',
  '33 31 0:30 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime shared:11 - cgroup cgroup rw,memory',
].join('\n');

/** A cgroup v2 machine with this process in cgroup `cg`; cpu.max by cgroup path ("/" the root). */
const v2 = (cg: string, cpuMax: Record<string, string>, more: Record<string, string> = {}): ReadText =>
  files({
    '/proc/self/mountinfo': V2_MOUNT,
    '/proc/self/cgroup': `0::${cg}\n`,
    ...Object.fromEntries(
      Object.entries(cpuMax).map(([dir, max]) => [`/sys/fs/cgroup${dir === '/' ? '' : dir}/cpu.max`, max]),
    ),
    ...more,
  });

describe('cgroupCpuQuota', () => {
  it("cgroup v2: the quota of the process's cgroup, over its period", () => {
    const read = v2('/ci/job-7', { '/ci/job-7': '150000 100000\n', '/ci': 'max 100000\n' });
    expect(cgroupCpuQuota(read)).toEqual({
      cpus: 1.5,
      source: 'cgroup v2 cpu.max 150000 100000 in /sys/fs/cgroup/ci/job-7',
      dir: '/sys/fs/cgroup/ci/job-7',
      v2: true,
    });
    expect(usableCpus(read, 32)).toMatchObject({ count: 1, affinity: 32 });
  });

  it('cgroup v2: a quota set on an ancestor caps its children; the lowest wins', () => {
    const read = v2('/kubepods/pod1/c1', {
      '/kubepods/pod1/c1': 'max 100000',
      '/kubepods/pod1': '400000 100000',
      '/kubepods': '3200000 100000',
    });
    expect(cgroupCpuQuota(read)?.cpus).toBe(4);
    expect(usableCpus(read, 64).count).toBe(4);
  });

  it("a container with its own cgroup namespace sees its cgroup as the mount's root", () => {
    const read = v2('/', { '/': '200000 100000\n' });
    expect(usableCpus(read, 16)).toMatchObject({ count: 2, quota: { cpus: 2 } });
  });

  it('cgroup v1: cpu.cfs_quota_us over cpu.cfs_period_us, in the hierarchy that carries cpu', () => {
    const read = files({
      '/proc/self/mountinfo': V1_MOUNTS,
      '/proc/self/cgroup': '5:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n0::/docker/abc\n',
      '/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us': '250000\n',
      '/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us': '100000\n',
      '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us': '-1\n',
      '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us': '100000\n',
    });
    expect(cgroupCpuQuota(read)).toMatchObject({
      cpus: 2.5,
      source: 'cgroup v1 cpu.cfs_quota_us 250000 / cpu.cfs_period_us 100000 in /sys/fs/cgroup/cpu,cpuacct/docker/abc',
      v2: false,
    });
    expect(usableCpus(read, 8).count).toBe(2);
  });

  it('no quota, no cgroups, or a quota above the affinity: the affinity count; never below 1', () => {
    const unlimited = v2('/', { '/': 'max 100000\n' });
    expect(cgroupCpuQuota(unlimited)).toBeNull();
    expect(usableCpus(unlimited, 8)).toEqual({ count: 8, affinity: 8, quota: null });
    expect(usableCpus(files({}), 3)).toEqual({ count: 3, affinity: 3, quota: null }); // not Linux
    const wide = v2('/', { '/': '800000 100000\n' });
    expect(usableCpus(wide, 2).count).toBe(2);
    const tiny = v2('/', { '/': '50000 100000\n' });
    expect(usableCpus(tiny, 4)).toMatchObject({ count: 1, quota: { cpus: 0.5 } });
  });

  it('reads mount points with escaped characters', () => {
    const read = files({
      '/proc/self/mountinfo': '29 23 0:26 / /mnt/cg\\040two rw - cgroup2 cgroup2 rw\n',
      '/proc/self/cgroup': '0::/a\n',
      '/mnt/cg two/a/cpu.max': '100000 100000',
    });
    expect(cgroupCpuQuota(read)?.cpus).toBe(1);
  });
});

describe('throttling under the quota', () => {
  it('reads the throttled time of the cgroup that sets the quota (v2 in µs, v1 in ns), in ms', () => {
    const map: Record<string, string> = {
      '/proc/self/mountinfo': V2_MOUNT,
      '/proc/self/cgroup': '0::/pod/c1\n',
      '/sys/fs/cgroup/pod/c1/cpu.max': 'max 100000',
      '/sys/fs/cgroup/pod/cpu.max': '200000 100000',
      '/sys/fs/cgroup/pod/cpu.stat': 'usage_usec 99\nnr_periods 10\nnr_throttled 3\nthrottled_usec 45500\n',
      '/sys/fs/cgroup/pod/c1/cpu.stat': 'usage_usec 99\nthrottled_usec 0\n',
    };
    const v2 = throttledMsReader(files(map))!;
    expect(v2()).toBe(45.5);
    map['/sys/fs/cgroup/pod/cpu.stat'] = 'throttled_usec 145500\n';
    expect(v2()).toBe(145.5);
    const v1 = throttledMsReader(
      files({
        '/proc/self/mountinfo': V1_MOUNTS,
        '/proc/self/cgroup': '4:cpu,cpuacct:/\n',
        '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us': '50000',
        '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us': '100000',
        '/sys/fs/cgroup/cpu,cpuacct/cpu.stat': 'nr_periods 5\nnr_throttled 2\nthrottled_time 7000000\n',
      }),
    )!;
    expect(v1()).toBe(7);
  });

  it('none without a quota, or without the counter', () => {
    expect(throttledMsReader(v2('/', { '/': 'max 100000' }))).toBeNull();
    expect(throttledMsReader(v2('/', { '/': '100000 100000' }))).toBeNull();
  });
});

describe('k6 under a CPU quota', () => {
  const quota = { count: 2, affinity: 32, quota: { cpus: 2.5, source: 'cgroup v2', dir: '/sys/fs/cgroup', v2: true } };
  it('gets GOMAXPROCS from the quota unless the user set it; none without a quota', () => {
    expect(k6ProcessEnv({ A: '1' }, quota)).toEqual({ A: '1', K6_CSV_TIME_FORMAT: 'unix_milli', GOMAXPROCS: '2' });
    expect(k6ProcessEnv({ GOMAXPROCS: '8' }, quota).GOMAXPROCS).toBe('8');
    expect('GOMAXPROCS' in k6ProcessEnv({}, { count: 32, affinity: 32, quota: null })).toBe(false);
    // k6's CPU share is read over the CPUs Go lets it use
    expect([
      goMaxProcs({ GOMAXPROCS: '2' }),
      goMaxProcs({}),
      goMaxProcs({ GOMAXPROCS: 'x' }),
      goMaxProcs({ GOMAXPROCS: '0' }),
    ]).toEqual([2, Infinity, Infinity, Infinity]);
  });
});
