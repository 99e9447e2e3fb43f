// autocannon ships no types; the bench uses its programmatic API only.
declare module 'autocannon' {
  interface AutocannonResult {
    requests: { average: number; total: number };
    latency: { p50: number; p90: number; p99: number };
    errors: number;
    non2xx: number;
  }
  function autocannon(options: Record<string, unknown>): Promise<AutocannonResult>;
  export default autocannon;
}
