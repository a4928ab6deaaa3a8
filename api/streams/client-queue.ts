/**
 * The messages waiting for one client, at most `max`. The poller pushes without waiting (it
 * serves every client); the client's writer takes them as fast as its connection drains. A
 * client that falls `max` messages behind has lost its place: the queue drops what it held,
 * says so once through `onOverflow`, and takes nothing more.
 */
export class ClientQueue<T> {
  private items: T[] = [];
  private wakeUp: (() => void) | undefined;
  private overflowed = false;
  private readonly max: number;
  private readonly onOverflow: () => void;

  constructor(max: number, onOverflow: () => void) {
    this.max = max;
    this.onOverflow = onOverflow;
  }

  push(item: T): void {
    if (this.overflowed) return;
    if (this.items.length >= this.max) {
      this.overflowed = true;
      this.items = [];
      this.onOverflow();
    } else {
      this.items.push(item);
    }
    this.wake();
  }

  /** The next message, or undefined when none waits (or the queue overflowed). */
  take(): T | undefined {
    return this.items.shift();
  }

  get hasOverflowed(): boolean {
    return this.overflowed;
  }

  /** Resolves true when a message arrives (or wake() is called), false after `ms` without one. */
  wait(ms: number): Promise<boolean> {
    if (this.items.length > 0 || this.overflowed) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wakeUp = undefined;
        resolve(false);
      }, ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve(true);
      };
    });
  }

  /** Ends a wait at once (a disconnect). */
  wake(): void {
    this.wakeUp?.();
  }
}
