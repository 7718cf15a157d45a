// A store connected while the first run was still deciding whether to start its demo (the bridge's start asks
// each platform whether a store is connected, and a connect may land in between): the demo must not start beside
// the merchant's own store, where its page and its resync answers would stand in for the real store's.
import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { shopifyDemo } from '../../adapters/shopify/demo.ts';
import { FirstRun } from '../../src/composition/first-run.ts';
import type { Platforms } from '../../src/composition/platforms.ts';
import type { Config } from '../../src/config.ts';
import { createHttpApp } from '../../src/http/app.ts';
import { createLogger } from '../../src/logger.ts';
import { eventually } from '../helpers/engine.ts';

describe('the first run’s demo', () => {
  it('does not start when a store connects while the start is still asking', async () => {
    let answer: (connected: boolean) => void = () => undefined;
    const platforms = {
      modules: [
        {
          module: { name: 'shopify', names: { platform: 'Shopify' }, demo: shopifyDemo },
          parts: { storesToRead: { connected: () => new Promise<boolean>((resolve) => (answer = resolve)) } },
        },
      ],
    } as unknown as Platforms;
    const run = new FirstRun({
      config: {} as Config,
      platforms,
      secrets: { shopify: 'demo-secret' },
      engine: {} as never,
      registry: {} as never,
      adminToken: undefined,
      logger: createLogger({ level: 'silent' }),
      pace: {},
    });
    const started = run.start('http://127.0.0.1:9', {} as never);
    // The start is asking the platform; a store connects, and the bridge stops the demo.
    run.stop();
    answer(false);
    expect(await started).toBeUndefined();
    expect(run.running).toBe(false);
    expect(run.sources).toEqual([]);
  });
});

describe('the demo’s refusals in the log', () => {
  it('are at debug: a refused redeem through the demo store page, or a call from elsewhere, warns no one', async () => {
    const lines: Array<{ level: number; req?: { url: string } }> = [];
    const logger = createLogger({
      level: 'debug',
      destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
    });
    const refusing = (status: number) => express.Router().all('/*path', (_req, res) => res.status(status).json({}));
    const app = createHttpApp({
      logger,
      platformRoutes: { shopify: express.Router().use('/storefront', refusing(409)) },
      demoPage: { prefix: '/demo', routes: refusing(403), origin: undefined },
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      for (const path of ['/shopify/storefront/points/redeem', '/demo/storefront/shopify/apps/loyalty/points/redeem'])
        await fetch(`${base}${path}`, { method: 'POST' });
      await new Promise<void>((resolve) => logger.flush(() => resolve()));
      await eventually(() => expect(lines.filter(({ req }) => req)).toHaveLength(2));
      expect(lines.filter(({ level }) => level >= 40)).toEqual([]);
    } finally {
      server.close();
    }
  });
});
