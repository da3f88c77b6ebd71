/**
 * A token bucket (client-go's QPS and burst): `burst` requests may go at once,
 * then `qps` a second. Each caller reserves a token and is told how long to
 * wait for it, so waiters are served in order and none starves.
 *
 * @example
 *   const limiter = new TokenBucketRateLimiter({ qps: 50, burst: 100 });
 *   await limiter.wait();
 */
export interface TokenBucketOptions {
  /** Tokens added per second; ≤ 0 or Infinity: no limit. */
  readonly qps: number;
  /** Bucket size (at least 1). */
  readonly burst: number;
  /** Milliseconds (tests inject a clock). */
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export class TokenBucketRateLimiter {
  private tokens: number;
  private last: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly unlimited: boolean;
  private readonly burst: number;

  constructor(private readonly options: TokenBucketOptions) {
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.unlimited = !(options.qps > 0) || !Number.isFinite(options.qps);
    this.burst = Math.max(1, Math.floor(options.burst));
    this.tokens = this.burst;
    this.last = this.now();
  }

  /** Take a token; returns how many milliseconds the caller must wait before using it. */
  reserve(): number {
    if (this.unlimited) return 0;
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.options.qps) / 1000);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.options.qps;
  }

  /** Take a token and wait until it is due. */
  async wait(): Promise<void> {
    const delay = this.reserve();
    if (delay > 0) await this.sleep(delay);
  }
}
