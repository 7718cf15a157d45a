// The process's own figures (memory, event loop, garbage collection) on every bridge's /metrics, collected once per
// process: prom-client's collectors of them never stop, so one set per bridge kept every stopped bridge alive in a
// process that starts many (the test workers, issue 67).
import { expect, it } from 'vitest';
import { Metrics } from '../../src/metrics.ts';

const FIGURES = ['loyalty_bridge_process_resident_memory_bytes', 'loyalty_bridge_nodejs_eventloop_lag_seconds'];

it("shows the process's figures on each bridge's metrics, from one collector per process", async () => {
  const first = new Metrics();
  const second = new Metrics();
  for (const metrics of [first, second]) {
    const text = await metrics.registry.metrics();
    for (const name of FIGURES) expect(text).toContain(`# TYPE ${name} `);
  }
  for (const name of FIGURES) expect(second.registry.getSingleMetric(name)).toBe(first.registry.getSingleMetric(name));
});
