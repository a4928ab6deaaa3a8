// One side of the fast book: price levels kept sorted with the best level LAST, so
// taking or emptying the best level is an O(1) pop, and new levels (which mostly
// arrive near the top of the book) are spliced in where few elements must move.
// Each level is a FIFO doubly linked list, so any order leaves in O(1) by reference.

export class RestingNode {
  readonly orderId: string;
  readonly userId: string;
  readonly isBid: boolean;
  readonly price: number;
  remaining: number;
  prev: RestingNode | null = null;
  next: RestingNode | null = null;
  level: PriceLevel | null = null;

  constructor(orderId: string, userId: string, isBid: boolean, price: number, remaining: number) {
    this.orderId = orderId;
    this.userId = userId;
    this.isBid = isBid;
    this.price = price;
    this.remaining = remaining;
  }
}

export class PriceLevel {
  readonly price: number;
  /** price for bids, -price for asks: ascending key order puts the best level last on both sides. */
  readonly key: number;
  head: RestingNode | null = null;
  tail: RestingNode | null = null;
  count = 0;

  constructor(price: number, key: number) {
    this.price = price;
    this.key = key;
  }
}

export class BookSide {
  readonly isBid: boolean;
  readonly levels: PriceLevel[] = [];
  private readonly byPrice = new Map<number, PriceLevel>();

  constructor(isBid: boolean) {
    this.isBid = isBid;
  }

  best(): PriceLevel | undefined {
    return this.levels[this.levels.length - 1];
  }

  append(node: RestingNode): void {
    let level = this.byPrice.get(node.price);
    if (level === undefined) level = this.addLevel(node.price);
    node.level = level;
    node.prev = level.tail;
    if (level.tail === null) level.head = node;
    else level.tail.next = node;
    level.tail = node;
    level.count++;
  }

  /** Unlinks the node; drops its level when that was the level's last order. */
  unlink(node: RestingNode): void {
    const level = node.level!;
    if (node.prev === null) level.head = node.next;
    else node.prev.next = node.next;
    if (node.next === null) level.tail = node.prev;
    else node.next.prev = node.prev;
    node.prev = node.next = node.level = null;
    if (--level.count === 0) this.removeLevel(level);
  }

  private addLevel(price: number): PriceLevel {
    const level = new PriceLevel(price, this.isBid ? price : -price);
    const levels = this.levels;
    // First index whose key is greater: binary search from the whole range.
    let low = 0;
    let high = levels.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (levels[middle].key < level.key) low = middle + 1;
      else high = middle;
    }
    if (low === levels.length) levels.push(level);
    else levels.splice(low, 0, level);
    this.byPrice.set(price, level);
    return level;
  }

  private removeLevel(level: PriceLevel): void {
    this.byPrice.delete(level.price);
    const levels = this.levels;
    const last = levels.length - 1;
    if (levels[last] === level) {
      levels.pop();
      return;
    }
    let low = 0;
    let high = last;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (levels[middle].key < level.key) low = middle + 1;
      else high = middle;
    }
    if (levels[low] !== level) throw new Error(`price level ${level.price} missing from its side`);
    levels.splice(low, 1);
  }
}
