import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Plugin, Registry } from '../framework/interfaces.js';
import { UPSTREAM_DEFAULT_PLUGINS } from './default-plugins.js';
import { parseGoDuration } from './go-duration.js';
import { defaultSchedulerConfiguration, loadSchedulerConfiguration, parseSchedulerConfiguration, SchedulerConfigurationError } from './load.js';
import { mergePluginSet } from './merge-plugins.js';

/** A registry that knows every upstream default and two extra plugins. */
const everything: Registry = Object.fromEntries([...UPSTREAM_DEFAULT_PLUGINS.map((p) => p.name), 'Custom', 'OtherSort'].map((name) => [name, (): Plugin => ({ name })]));
const head = 'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n';

function expectError(text: string, message: string | RegExp): void {
  assert.throws(() => parseSchedulerConfiguration(text, { registry: everything }), (e: unknown) => {
    assert.ok(e instanceof SchedulerConfigurationError, String(e));
    if (typeof message === 'string') assert.equal(e.message, message);
    else assert.match(e.message, message);
    return true;
  });
}

describe('scheduler configuration: defaults', () => {
  it('fills upstream v1.33 defaults: one default-scheduler profile with the default multiPoint plugins and weights', () => {
    const config = defaultSchedulerConfiguration({ registry: everything });
    assert.equal(config.percentageOfNodesToScore, 0);
    assert.equal(config.podInitialBackoffSeconds, 1);
    assert.equal(config.podMaxBackoffSeconds, 10);
    assert.deepEqual(config.leaderElection, { leaderElect: true, leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, resourceNamespace: 'kube-system', resourceName: 'kube-scheduler' });
    assert.equal(config.profiles.length, 1);
    assert.equal(config.profiles[0]!.schedulerName, 'default-scheduler');
    assert.deepEqual(config.profiles[0]!.plugins?.multiPoint?.enabled, [
      { name: 'SchedulingGates' },
      { name: 'PrioritySort' },
      { name: 'NodeUnschedulable' },
      { name: 'NodeName' },
      { name: 'TaintToleration', weight: 3 },
      { name: 'NodeAffinity', weight: 2 },
      { name: 'NodePorts' },
      { name: 'NodeResourcesFit', weight: 1 },
      { name: 'PodTopologySpread', weight: 2 },
      { name: 'InterPodAffinity', weight: 2 },
      { name: 'DefaultPreemption' },
      { name: 'NodeResourcesBalancedAllocation', weight: 1 },
      { name: 'ImageLocality', weight: 1 },
      { name: 'DefaultBinder' },
    ]);
  });

  it('leaves out defaults the registry does not hold (the in-tree registry today)', () => {
    const config = defaultSchedulerConfiguration();
    const enabled = config.profiles[0]!.plugins?.multiPoint?.enabled?.map((p) => p.name) ?? [];
    assert.ok(enabled.includes('PrioritySort') && enabled.includes('DefaultBinder') && enabled.includes('SchedulingGates'));
    assert.ok(!enabled.includes('VolumeBinding'));
  });

  it('reads JSON as well as YAML, and a file', () => {
    const json = JSON.stringify({ apiVersion: 'kubescheduler.config.k8s.io/v1', kind: 'KubeSchedulerConfiguration', percentageOfNodesToScore: 40, profiles: [{ schedulerName: 'a' }, { schedulerName: 'b', percentageOfNodesToScore: 70 }] });
    const config = parseSchedulerConfiguration(json, { registry: everything });
    assert.equal(config.percentageOfNodesToScore, 40);
    assert.deepEqual(config.profiles.map((p) => [p.schedulerName, p.percentageOfNodesToScore]), [['a', undefined], ['b', 70]]);
    const dir = mkdtempSync(join(tmpdir(), 'sched-config-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'config.yaml');
    writeFileSync(file, `${head}leaderElection:\n  leaderElect: false\n  leaseDuration: 1m30s\n  renewDeadline: 500ms\n`);
    const fromFile = loadSchedulerConfiguration(file, { registry: everything });
    assert.equal(fromFile.leaderElection.leaderElect, false);
    assert.equal(fromFile.leaderElection.leaseDurationMs, 90_000);
    assert.equal(fromFile.leaderElection.renewDeadlineMs, 500);
    assert.equal(loadSchedulerConfiguration(undefined, { registry: everything }).profiles.length, 1);
    assert.throws(() => loadSchedulerConfiguration(join(dir, 'missing.yaml')), /cannot read the scheduler configuration .*missing\.yaml/);
    writeFileSync(file, `${head}percentageOfNodesToScore: 101\n`);
    assert.throws(() => loadSchedulerConfiguration(file, { registry: everything }), /config\.yaml: percentageOfNodesToScore: Invalid value: 101: not in valid range \[0-100\]/);
  });
});

describe('scheduler configuration: merging plugins as upstream', () => {
  it('re-configures a default in place, drops disabled ones, and appends the rest', () => {
    const merged = mergePluginSet(
      { enabled: [{ name: 'A' }, { name: 'B', weight: 1 }, { name: 'C' }] },
      { enabled: [{ name: 'X' }, { name: 'B', weight: 5 }], disabled: [{ name: 'C' }] },
    );
    assert.deepEqual(merged.enabled, [{ name: 'A' }, { name: 'B', weight: 5 }, { name: 'X' }]);
    assert.deepEqual(merged.disabled, [{ name: 'C' }]);
  });

  it("drops every default with '*'", () => {
    assert.deepEqual(mergePluginSet({ enabled: [{ name: 'A' }] }, { enabled: [{ name: 'X' }], disabled: [{ name: '*' }] }).enabled, [{ name: 'X' }]);
  });

  it('merges a profile over the default multiPoint set and keeps per-point settings', () => {
    const config = parseSchedulerConfiguration(
      `${head}profiles:\n- schedulerName: custom\n  plugins:\n    multiPoint:\n      enabled:\n      - name: TaintToleration\n        weight: 7\n      - name: Custom\n      disabled:\n      - name: ImageLocality\n    score:\n      disabled:\n      - name: NodeResourcesBalancedAllocation\n  pluginConfig:\n  - name: Custom\n    args:\n      level: 3\n`,
      { registry: everything },
    );
    const profile = config.profiles[0]!;
    const enabled = profile.plugins?.multiPoint?.enabled ?? [];
    assert.deepEqual(enabled.find((p) => p.name === 'TaintToleration'), { name: 'TaintToleration', weight: 7 });
    assert.equal(enabled.at(-1)?.name, 'Custom');
    assert.ok(!enabled.some((p) => p.name === 'ImageLocality'));
    assert.deepEqual(profile.plugins?.score?.disabled, [{ name: 'NodeResourcesBalancedAllocation' }]);
    assert.deepEqual(profile.pluginConfig, [{ name: 'Custom', args: { level: 3 } }]);
  });
});

describe('scheduler configuration: errors name the field', () => {
  it('rejects another apiVersion or kind', () => {
    expectError('apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n', /apiVersion "kubescheduler.config.k8s.io\/v1beta3" kind "KubeSchedulerConfiguration" is not supported: want apiVersion "kubescheduler.config.k8s.io\/v1"/);
    expectError('apiVersion: kubescheduler.config.k8s.io/v1\nkind: Pod\n', /kind "Pod" is not supported/);
    expectError('[1, 2]', 'a KubeSchedulerConfiguration must be an object');
    expectError('a: [', /not valid YAML or JSON/);
  });

  it('rejects unknown fields and extenders, accepts upstream fields k8ts ignores', () => {
    expectError(`${head}percentageOfNodes: 3\n`, 'percentageOfNodes: Unsupported value: "percentageOfNodes": unknown field');
    expectError(`${head}extenders:\n- urlPrefix: http://x\n`, /extenders: Invalid value: "1 extender\(s\)": scheduler extenders are not supported by k8ts/);
    assert.equal(parseSchedulerConfiguration(`${head}parallelism: 16\nclientConnection:\n  qps: 50\n`, { registry: everything }).profiles.length, 1);
  });

  it('checks percentageOfNodesToScore at both levels', () => {
    expectError(`${head}percentageOfNodesToScore: -1\n`, 'percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]');
    expectError(`${head}profiles:\n- schedulerName: a\n  percentageOfNodesToScore: 150\n`, 'profiles[0].percentageOfNodesToScore: Invalid value: 150: not in valid range [0-100]');
    expectError(`${head}percentageOfNodesToScore: 1.5\n`, 'percentageOfNodesToScore: Invalid value: 1.5: must be an integer');
  });

  it('rejects duplicate and empty scheduler names', () => {
    expectError(`${head}profiles:\n- schedulerName: a\n- schedulerName: a\n`, 'profiles[1].schedulerName: Duplicate value: "a"');
    expectError(`${head}profiles:\n- schedulerName: ""\n`, 'profiles[0].schedulerName: Required value');
    expectError(`${head}profiles: []\n`, 'profiles: Required value');
  });

  it('rejects unknown plugin names, with the path of the entry', () => {
    expectError(`${head}profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: NodeResourcesFitt\n`, 'profiles[0].plugins.filter.enabled[0].name: Invalid value: "NodeResourcesFitt": no plugin of this name is registered');
    expectError(`${head}profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: Nope\n`, /profiles\[0\]\.plugins\.multiPoint\.enabled\[\d+\]\.name: Invalid value: "Nope"/);
    expectError(`${head}profiles:\n- plugins:\n    filters:\n      enabled: []\n`, 'profiles[0].plugins.filters: Unsupported value: "filters": unknown extension point');
  });

  it('rejects a queueSort that differs between profiles', () => {
    expectError(
      `${head}profiles:\n- schedulerName: a\n- schedulerName: b\n  plugins:\n    queueSort:\n      enabled:\n      - name: OtherSort\n      disabled:\n      - name: '*'\n`,
      /^profiles\[1\]\.plugins\.queueSort: Invalid value: .*OtherSort.*: must be the same for all profiles$/,
    );
  });

  it('rejects bad backoffs, durations, weights and duplicate pluginConfig, and reports several errors at once', () => {
    expectError(`${head}podInitialBackoffSeconds: 0\n`, 'podInitialBackoffSeconds: Invalid value: 0: must be greater than 0');
    expectError(`${head}podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 2\n`, 'podMaxBackoffSeconds: Invalid value: 2: must be greater than or equal to PodInitialBackoffSeconds');
    expectError(`${head}leaderElection:\n  leaseDuration: soon\n`, 'leaderElection.leaseDuration: Invalid value: "soon": time: invalid duration "soon"');
    expectError(`${head}leaderElection:\n  leaseDuration: 5s\n`, 'leaderElection.leaseDuration: Invalid value: "5s": LeaseDuration must be greater than RenewDeadline');
    expectError(`${head}profiles:\n- plugins:\n    score:\n      enabled:\n      - name: Custom\n        weight: -2\n`, 'profiles[0].plugins.score.enabled[0].weight: Invalid value: -2: must be greater than or equal to 0');
    expectError(`${head}profiles:\n- pluginConfig:\n  - name: Custom\n  - name: Custom\n`, 'profiles[0].pluginConfig[1].name: Duplicate value: "Custom"');
    expectError(`${head}percentageOfNodesToScore: 101\nprofiles:\n- schedulerName: a\n- schedulerName: a\n`, '[percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100], profiles[1].schedulerName: Duplicate value: "a"]');
  });
});

describe('Go durations', () => {
  it('parses what time.ParseDuration parses', () => {
    assert.equal(parseGoDuration('15s'), 15_000);
    assert.equal(parseGoDuration('1h2m3.5s'), 3_723_500);
    assert.equal(parseGoDuration('250ms'), 250);
    assert.equal(parseGoDuration('0'), 0);
    assert.throws(() => parseGoDuration('15'), /time: invalid duration "15"/);
  });
});
