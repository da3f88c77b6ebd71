/**
 * Why each node was turned down in one scheduling cycle (upstream's
 * NodeToStatus): the statuses of the nodes that Filter rejected, plus one
 * status for every node a PreFilter result excluded (they were never filtered).
 */
import { Code, Status } from './status.js';

export class NodeToStatus {
  private readonly byNode = new Map<string, Status>();

  constructor(
    /** The status of a node not in the map (excluded by a PreFilter result, or not looked at). */
    public absentNodesStatus: Status = new Status(Code.UnschedulableAndUnresolvable, ['node(s) didn\'t satisfy plugin(s) []']),
  ) {}

  set(nodeName: string, status: Status): void {
    this.byNode.set(nodeName, status);
  }

  get(nodeName: string): Status {
    return this.byNode.get(nodeName) ?? this.absentNodesStatus;
  }

  /** Nodes that were filtered and rejected, with their statuses. */
  entries(): IterableIterator<[string, Status]> {
    return this.byNode.entries();
  }

  get size(): number {
    return this.byNode.size;
  }
}
