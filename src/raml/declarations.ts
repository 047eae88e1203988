/** The resource types and traits an API declares, by name, as expansion and its checks read them. */
import type { YNode, YScalar } from '../load/ynode.js';

export interface Declaration {
  readonly name: string;
  readonly nameNode: YScalar;
  readonly body: YNode;
}

export interface Declarations {
  readonly resourceTypes: ReadonlyMap<string, Declaration>;
  readonly traits: ReadonlyMap<string, Declaration>;
  /** Resource types in a cycle of `type:`, reported where they are declared. */
  readonly cyclicTypes?: ReadonlySet<string>;
}
