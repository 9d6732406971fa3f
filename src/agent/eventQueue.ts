// A queue that lets concurrent work (parallel tool calls) hand events to one
// async generator as they happen, in the order they happen.
export class EventQueue<T> {
  private items: T[] = [];
  private waiting: (() => void) | undefined;
  private closed = false;

  push(item: T): void {
    this.items.push(item);
    this.wake();
  }

  close(): void {
    this.closed = true;
    this.wake();
  }

  private wake(): void {
    const w = this.waiting;
    this.waiting = undefined;
    w?.();
  }

  async *drain(): AsyncGenerator<T> {
    for (;;) {
      while (this.items.length) yield this.items.shift() as T;
      if (this.closed) return;
      await new Promise<void>((resolve) => (this.waiting = resolve));
    }
  }
}
