declare namespace Cloudflare {
  interface Env {
    /** Contract fuzzer (test/fuzz): the fast-check seed to replay; random when unset. */
    FUZZ_SEED?: string;
    /** Contract fuzzer: total requests across all operations (default 10,000). */
    FUZZ_RUNS?: string;
    /** Contract fuzzer: comma-separated operationIds to fuzz (default all). */
    FUZZ_OPS?: string;
    /** Contract fuzzer: "1" records every distinct failure and prints them, instead of stopping at the first. */
    FUZZ_COLLECT?: string;
  }
}
