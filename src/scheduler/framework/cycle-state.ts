/**
 * Data that plugins share within one scheduling cycle of one pod (upstream's
 * CycleState): PreFilter computes something once, Filter reads it per node.
 * Keys are plugin-chosen strings (use the plugin name as prefix). Values that
 * change while the cycle runs (e.g. a PreFilter result updated by
 * AddPod/RemovePod during preemption) implement {@link StateData} so that
 * clone() copies them.
 */
export interface StateData {
  clone(): StateData;
}

export class CycleState {
  private readonly data = new Map<string, unknown>();
  /** Plugins whose PreFilter said Skip: their Filter is not run this cycle. */
  readonly skipFilterPlugins = new Set<string>();
  /** Plugins whose PreScore said Skip: their Score is not run this cycle. */
  readonly skipScorePlugins = new Set<string>();

  read<T>(key: string): T | undefined {
    return this.data.get(key) as T | undefined;
  }

  write(key: string, value: unknown): void {
    this.data.set(key, value);
  }

  delete(key: string): void {
    this.data.delete(key);
  }

  /** A copy for what-if evaluation (preemption): StateData values are cloned, others shared. */
  clone(): CycleState {
    const copy = new CycleState();
    for (const [key, value] of this.data) copy.data.set(key, isStateData(value) ? value.clone() : value);
    for (const name of this.skipFilterPlugins) copy.skipFilterPlugins.add(name);
    for (const name of this.skipScorePlugins) copy.skipScorePlugins.add(name);
    return copy;
  }
}

function isStateData(value: unknown): value is StateData {
  return typeof value === 'object' && value !== null && typeof (value as { clone?: unknown }).clone === 'function';
}
